package io.pathfence.web;

import java.util.Collections;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;

import org.springframework.http.server.observation.ServerRequestObservationContext;
import org.springframework.web.filter.ServerHttpObservationFilter;
import org.springframework.web.servlet.HandlerExecutionChain;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.util.ServletRequestPathUtils;

/**
 * Gives a request the fence turns away the route pattern of the handler that would have
 * served it, so that {@code http.server.requests} counts the {@code 503} under that
 * {@code uri} (as it counts the requests served) rather than under {@code UNKNOWN}: the
 * request never reaches the dispatcher, which would otherwise set it.
 * <p>
 * The handler is looked up as the dispatcher does, through the application's handler
 * mappings in their order, on a view of the request whose attributes stay its own, so the
 * lookup leaves nothing behind. It runs only for rejections.
 */
public final class RejectionRoute {

	/** For an application without Spring MVC's handler mappings: attributes nothing. */
	public static final RejectionRoute NONE = new RejectionRoute(List::of);

	private final Supplier<List<HandlerMapping>> handlerMappings;

	private volatile List<HandlerMapping> mappings;

	/**
	 * @param handlerMappings the dispatcher's handler mappings, in its order; asked at
	 * the first rejection, when they are all registered
	 */
	public RejectionRoute(Supplier<List<HandlerMapping>> handlerMappings) {
		this.handlerMappings = handlerMappings;
	}

	/**
	 * Sets the route pattern on the request's observation, if it has one and a handler
	 * matches.
	 */
	void attribute(HttpServletRequest request) {
		ServerRequestObservationContext observation = ServerHttpObservationFilter.findObservationContext(request)
			.orElse(null);
		if (observation == null || observation.getPathPattern() != null) {
			return;
		}
		String pattern = patternOf(request);
		if (pattern != null) {
			observation.setPathPattern(pattern);
		}
	}

	/** The pattern of the handler the dispatcher would choose, or {@code null}. */
	String patternOf(HttpServletRequest request) {
		OwnAttributes lookup = new OwnAttributes(request);
		ServletRequestPathUtils.parseAndCache(lookup);
		for (HandlerMapping mapping : mappings()) {
			try {
				HandlerExecutionChain handler = mapping.getHandler(lookup);
				if (handler != null) {
					Object pattern = lookup.getAttribute(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE);
					return (pattern != null) ? pattern.toString() : null;
				}
			}
			catch (Exception ex) {
				// A mapping that matches the path but not the method or media type: the
				// dispatcher would not have served it either.
				return null;
			}
		}
		return null;
	}

	private List<HandlerMapping> mappings() {
		List<HandlerMapping> found = this.mappings;
		if (found == null) {
			found = List.copyOf(this.handlerMappings.get());
			this.mappings = found;
		}
		return found;
	}

	/**
	 * The request as the handler mappings see it: attributes they set stay here, those of
	 * the request are read through.
	 */
	private static final class OwnAttributes extends HttpServletRequestWrapper {

		private static final Object REMOVED = new Object();

		private final Map<String, Object> attributes = new HashMap<>();

		OwnAttributes(HttpServletRequest request) {
			super(request);
		}

		@Override
		public Object getAttribute(String name) {
			Object value = this.attributes.get(name);
			if (value == REMOVED) {
				return null;
			}
			return (value != null) ? value : super.getAttribute(name);
		}

		@Override
		public Enumeration<String> getAttributeNames() {
			Map<String, Object> all = new HashMap<>();
			Collections.list(super.getAttributeNames()).forEach((name) -> all.put(name, Boolean.TRUE));
			all.putAll(this.attributes);
			all.values().removeIf((value) -> value == REMOVED);
			return Collections.enumeration(all.keySet());
		}

		@Override
		public void setAttribute(String name, Object value) {
			this.attributes.put(name, (value != null) ? value : REMOVED);
		}

		@Override
		public void removeAttribute(String name) {
			this.attributes.put(name, REMOVED);
		}

	}

}
