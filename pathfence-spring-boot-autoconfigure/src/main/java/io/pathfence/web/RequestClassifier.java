package io.pathfence.web;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import jakarta.servlet.http.HttpServletMapping;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.MappingMatch;

import org.springframework.http.server.PathContainer;
import org.springframework.http.server.RequestPath;
import org.springframework.web.servlet.mvc.condition.PathPatternsRequestCondition;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.util.ServletRequestPathUtils;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;
import org.springframework.web.util.pattern.PatternParseException;

import io.pathfence.core.InvalidPathFenceConfigurationException;
import io.pathfence.core.PathFence;

/**
 * Decides which execution path an inbound request belongs to: the path named by
 * {@code @FencedPath} on the handler that will serve it, else the first configured route
 * that matches, else the path learned for the handler's route, else the local path.
 */
public final class RequestClassifier {

	/** What {@link #classify} returns for a request that bypasses the fence. */
	public static final String EXEMPT = "";

	private final List<Route> routes;

	private final List<Route> exempt;

	private final Supplier<List<Map<RequestMappingInfo, String>>> handlerPaths;

	/** {@link #soleMatch} could not tell. */
	private static final Match LOOK_PROPERLY = new Match(FencedHandlers.UNFENCED, null);

	private final LearnedClassification learned;

	/** Whether some handler names a path; set with {@link #handlers}. */
	private volatile boolean anyFenced;

	/**
	 * Each handler mapping's request mappings with their paths and patterns; empty when
	 * no handler names a path and nothing is learned.
	 */
	private volatile List<List<Handler>> handlers;

	/**
	 * @param routes configured patterns by path name, with the HTTP methods each path's
	 * routes are limited to
	 * @param handlerPaths each handler mapping's request mappings, in the dispatcher's
	 * order, with the path {@code @FencedPath} names on the handler or
	 * {@link FencedHandlers#UNFENCED}; asked once, on the first request, when every
	 * handler is registered
	 */
	public RequestClassifier(Map<String, PathRoutes> routes,
			Supplier<List<Map<RequestMappingInfo, String>>> handlerPaths) {
		this(List.of(), routes, handlerPaths);
	}

	/**
	 * @param exemptRoutes request path patterns that bypass the fence
	 * @param routes configured patterns by path name, with the HTTP methods each path's
	 * routes are limited to
	 * @param handlerPaths as for {@link #RequestClassifier(Map, Supplier)}
	 */
	public RequestClassifier(List<String> exemptRoutes, Map<String, PathRoutes> routes,
			Supplier<List<Map<RequestMappingInfo, String>>> handlerPaths) {
		this(exemptRoutes, routes, handlerPaths, null);
	}

	/**
	 * @param exemptRoutes request path patterns that bypass the fence
	 * @param routes configured patterns by path name, with the HTTP methods each path's
	 * routes are limited to
	 * @param handlerPaths as for {@link #RequestClassifier(Map, Supplier)}
	 * @param learned paths learned for handlers' routes, or {@code null}
	 */
	public RequestClassifier(List<String> exemptRoutes, Map<String, PathRoutes> routes,
			Supplier<List<Map<RequestMappingInfo, String>>> handlerPaths, LearnedClassification learned) {
		this.learned = learned;
		List<Route> exempt = new ArrayList<>();
		for (int i = 0; i < exemptRoutes.size(); i++) {
			exempt.add(new Route(EXEMPT, parse("pathfence.exempt-routes[" + i + "]", exemptRoutes.get(i)), Set.of()));
		}
		this.exempt = List.copyOf(exempt);
		this.routes = parse(routes);
		this.handlerPaths = handlerPaths;
	}

	/**
	 * A path's routes as configured.
	 *
	 * @param patterns request path patterns
	 * @param methods HTTP methods they are limited to; empty for all
	 */
	public record PathRoutes(List<String> patterns, List<String> methods) {
	}

	/**
	 * The path of this request: {@link PathFence#LOCAL} when it belongs to none,
	 * {@link #EXEMPT} when it bypasses the fence.
	 */
	public String classify(HttpServletRequest request) {
		// The request's path is parsed into segments only for a pattern or a URI that
		// needs it: a literal route matches a plain URI as it is.
		String uri = request.getRequestURI();
		boolean plain = request.getContextPath().isEmpty() && LiteralPattern.isPlain(uri);
		PathContainer requestPath = null;
		for (Route route : this.exempt) {
			if (plain && route.literal() != null) {
				if (route.literal().matches(uri)) {
					return EXEMPT;
				}
				continue;
			}
			requestPath = (requestPath != null) ? requestPath : parse(request);
			if (route.pattern().matches(requestPath)) {
				return EXEMPT;
			}
		}
		List<List<Handler>> handlers = handlers();
		boolean learning = this.learned != null && !this.learned.isEmpty();
		Match match = null;
		if (this.anyFenced || (learning && !handlers.isEmpty())) {
			match = bestMatch(request, handlers);
			if (match != null && !match.path().equals(FencedHandlers.UNFENCED)) {
				return match.path();
			}
		}
		if (!this.routes.isEmpty()) {
			String method = request.getMethod();
			for (Route route : this.routes) {
				if (!route.matchesMethod(method)) {
					continue;
				}
				if (plain && route.literal() != null) {
					if (route.literal().matches(uri)) {
						return route.path();
					}
					continue;
				}
				requestPath = (requestPath != null) ? requestPath : parse(request);
				if (route.pattern().matches(requestPath)) {
					return route.path();
				}
			}
		}
		if (learning && match != null && match.pattern() != null) {
			String path = this.learned.pathOf(request.getMethod(), match.pattern());
			if (path != null) {
				return path;
			}
		}
		return PathFence.LOCAL;
	}

	private static PathContainer parse(HttpServletRequest request) {
		return RequestPath.parse(request.getRequestURI(), request.getContextPath()).pathWithinApplication();
	}

	/**
	 * The path named on the handler the dispatcher will choose: within the first handler
	 * mapping that has a match, the best match by Spring MVC's own ordering (the most
	 * specific pattern wins), so that an annotated {@code /orders/{id}} does not claim
	 * {@code /orders/special} when another handler serves that.
	 */
	private Match bestMatch(HttpServletRequest request, List<List<Handler>> handlers) {
		Match sole = soleMatch(request, handlers);
		if (sole != LOOK_PROPERLY) {
			return sole;
		}
		boolean parsedHere = !ServletRequestPathUtils.hasParsedRequestPath(request);
		RequestPath parsed = parsedHere ? ServletRequestPathUtils.parseAndCache(request)
				: ServletRequestPathUtils.getParsedRequestPath(request);
		PathContainer lookupPath = parsed.pathWithinApplication();
		try {
			for (List<Handler> mapping : handlers) {
				RequestMappingInfo best = null;
				String bestPath = FencedHandlers.UNFENCED;
				for (Handler handler : mapping) {
					// Most mappings fail on their path pattern: testing it first spares
					// building a matching condition for each.
					if (!handler.mayMatch(lookupPath)) {
						continue;
					}
					RequestMappingInfo match = handler.info().getMatchingCondition(request);
					if (match != null && (best == null || match.compareTo(best, request) < 0)) {
						best = match;
						bestPath = handler.path();
					}
				}
				if (best != null) {
					PathPatternsRequestCondition patterns = best.getPathPatternsCondition();
					String pattern = (patterns != null) ? patterns.getFirstPattern().getPatternString() : null;
					return new Match(bestPath, pattern);
				}
			}
			return null;
		}
		finally {
			if (parsedHere) {
				// Leave the request as the dispatcher expects to find it.
				ServletRequestPathUtils.clearParsedRequestPath(request);
			}
		}
	}

	/**
	 * The handler the dispatcher will choose when one path pattern alone matches the
	 * request and its handler asks nothing of the request but the method, which it names:
	 * most requests of most services. Spares parsing the request into its attributes and
	 * building a matching condition, which the dispatcher does again anyway.
	 * {@link #LOOK_PROPERLY} whenever that is not plain to see.
	 */
	private Match soleMatch(HttpServletRequest request, List<List<Handler>> handlers) {
		String method = request.getMethod();
		HttpServletMapping servletMapping = request.getHttpServletMapping();
		if ("OPTIONS".equals(method)
				|| (servletMapping != null && servletMapping.getMappingMatch() == MappingMatch.PATH)) {
			// A CORS pre-flight, or a servlet path prefix the lookup path leaves out.
			return LOOK_PROPERLY;
		}
		PathContainer lookupPath = parse(request);
		for (List<Handler> mapping : handlers) {
			Handler candidate = null;
			PathPattern matched = null;
			for (Handler handler : mapping) {
				if (handler.patterns() == null) {
					return LOOK_PROPERLY;
				}
				for (PathPattern pattern : handler.patterns()) {
					if (pattern.matches(lookupPath)) {
						if (candidate != null) {
							// Spring MVC orders several by specificity and more.
							return LOOK_PROPERLY;
						}
						candidate = handler;
						matched = pattern;
					}
				}
			}
			if (candidate != null) {
				return candidate.claimsAny(method) ? new Match(candidate.path(), matched.getPatternString())
						: LOOK_PROPERLY;
			}
		}
		return null;
	}

	/**
	 * The handler the dispatcher will choose: the path {@code @FencedPath} names on it
	 * (or {@link FencedHandlers#UNFENCED}) and the pattern that matched, as Spring MVC
	 * reports it to observations.
	 */
	private record Match(String path, String pattern) {
	}

	/**
	 * A request mapping, the path its handler names, and its path patterns (null when it
	 * matches by a path matcher rather than patterns, so that every request is tried).
	 */
	private record Handler(RequestMappingInfo info, String path, PathPattern[] patterns, Set<String> methodsOnly) {

		static Handler of(RequestMappingInfo info, String path) {
			PathPatternsRequestCondition condition = info.getPathPatternsCondition();
			PathPattern[] patterns = (condition != null) ? condition.getPatterns().toArray(new PathPattern[0]) : null;
			if (patterns != null) {
				for (PathPattern pattern : patterns) {
					if (pattern.getPatternString().isEmpty()) {
						// A mapping without a path has rules of its own: let Spring
						// decide.
						patterns = null;
						break;
					}
				}
			}
			return new Handler(info, path, patterns, methodsOnly(info));
		}

		/**
		 * The methods the mapping names when it has no condition besides them and its
		 * patterns, so that a request of one of them whose path matches is its; else
		 * none.
		 */
		private static Set<String> methodsOnly(RequestMappingInfo info) {
			boolean methodsOnly = info.getParamsCondition().isEmpty() && info.getHeadersCondition().isEmpty()
					&& info.getConsumesCondition().isEmpty() && info.getProducesCondition().isEmpty()
					&& info.getVersionCondition().isEmpty() && info.getCustomCondition() == null;
			return methodsOnly ? info.getMethodsCondition()
				.getMethods()
				.stream()
				.map(Enum::name)
				.collect(Collectors.toUnmodifiableSet()) : Set.of();
		}

		/**
		 * Whether a request of this method whose path matches is surely this handler's
		 * (false when that takes Spring's whole matching to tell).
		 */
		boolean claimsAny(String method) {
			return method != null && this.methodsOnly.contains(method);
		}

		boolean mayMatch(PathContainer lookupPath) {
			if (this.patterns == null) {
				return true;
			}
			for (PathPattern pattern : this.patterns) {
				if (pattern.matches(lookupPath)) {
					return true;
				}
			}
			return false;
		}

	}

	private List<List<Handler>> handlers() {
		List<List<Handler>> current = this.handlers;
		if (current == null) {
			List<Map<RequestMappingInfo, String>> found = this.handlerPaths.get();
			boolean anyFenced = found.stream()
				.anyMatch((mapping) -> mapping.values()
					.stream()
					.anyMatch((path) -> !path.equals(FencedHandlers.UNFENCED)));
			this.anyFenced = anyFenced;
			// Without a single @FencedPath, and nothing learned to look up, classify by
			// the routes alone, cheaply.
			current = (anyFenced || this.learned != null) ? found.stream()
				.map((mapping) -> mapping.entrySet()
					.stream()
					.map((entry) -> Handler.of(entry.getKey(), entry.getValue()))
					.toList())
				.toList() : List.of();
			this.handlers = current;
		}
		return current;
	}

	private static List<Route> parse(Map<String, PathRoutes> routes) {
		List<Route> parsed = new ArrayList<>();
		routes.forEach((path, config) -> {
			for (int i = 0; i < config.patterns().size(); i++) {
				String pattern = config.patterns().get(i);
				parsed.add(new Route(path, parse("pathfence.paths." + path + ".routes[" + i + "]", pattern),
						new LinkedHashSet<>(config.methods())));
			}
		});
		return List.copyOf(parsed);
	}

	private static PathPattern parse(String property, String pattern) {
		if (pattern == null || !pattern.startsWith("/")) {
			throw new InvalidPathFenceConfigurationException(property, pattern,
					"a request path pattern starting with '/', such as /orders/**");
		}
		try {
			return PathPatternParser.defaultInstance.parse(pattern);
		}
		catch (PatternParseException ex) {
			throw new InvalidPathFenceConfigurationException(property, pattern,
					"a valid path pattern such as /orders/** or /carts/{id}", ex);
		}
	}

}
