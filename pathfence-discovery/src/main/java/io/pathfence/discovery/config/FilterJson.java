package io.pathfence.discovery.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.pathfence.discovery.PathPlan;
import io.pathfence.discovery.ProposedPath;

/**
 * Writes a plan as the Envoy filter's configuration: one entry of {@code paths} per path,
 * each with one {@code match}.
 * <p>
 * A path of one route gets the simplest match for it ({@link RoutePattern#filterMatch()}:
 * {@code exact}, {@code prefix} or {@code regex}); a path of several routes gets one
 * {@code regex} matching any of them, since an entry has one match and a name may be used
 * once. The match names a {@code method} when all the path's routes have the same one.
 * Entries come in the order that lets each learned route land on its own path (the filter
 * takes the first entry that matches); a route that still would not is named in the
 * warnings.
 */
public final class FilterJson {

	private FilterJson() {
	}

	/**
	 * @param plan the paths
	 * @param maxConcurrency the {@code max_concurrency} written for every path
	 */
	public static GeneratedConfig write(PathPlan plan, int maxConcurrency) {
		HttpRoutes routes = new HttpRoutes(plan);
		List<Entry> entries = new ArrayList<>();
		routes.byPath.forEach((path, parsed) -> entries.add(new Entry(path, parsed)));
		List<Entry> ordered = Precedence.order(entries, routes.probes);
		StringBuilder json = new StringBuilder();
		if (ordered.isEmpty()) {
			json.append("{\"paths\": []}\n");
		}
		else {
			json.append("{\n  \"paths\": [\n");
			for (int i = 0; i < ordered.size(); i++) {
				Entry entry = ordered.get(i);
				json.append("    {\"name\": ").append(string(entry.path.name()));
				json.append(", \"match\": {\"").append(entry.match.kind().field()).append("\": ");
				json.append(string(entry.match.value()));
				if (entry.method != null) {
					json.append(", \"method\": ").append(string(entry.method));
				}
				json.append("}, \"max_concurrency\": ").append(maxConcurrency).append('}');
				json.append((i < ordered.size() - 1) ? ",\n" : "\n");
			}
			json.append("  ]\n}\n");
		}
		List<String> warnings = new ArrayList<>(routes.warnings);
		warnings.addAll(Precedence.misclassified(ordered, routes.probes, "the filter's matches"));
		return new GeneratedConfig(json.toString(), warnings);
	}

	static String string(String s) {
		StringBuilder b = new StringBuilder(s.length() + 2).append('"');
		for (int i = 0; i < s.length(); i++) {
			char c = s.charAt(i);
			switch (c) {
				case '"' -> b.append("\\\"");
				case '\\' -> b.append("\\\\");
				case '\n' -> b.append("\\n");
				case '\r' -> b.append("\\r");
				case '\t' -> b.append("\\t");
				default -> {
					if (c < 0x20) {
						b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
					}
					else {
						b.append(c);
					}
				}
			}
		}
		return b.append('"').toString();
	}

	/** One entry of {@code paths}. */
	private static final class Entry implements Precedence.Rule {

		final ProposedPath path;

		final FilterMatch match;

		final String method;

		Entry(ProposedPath path, List<HttpRoutes.Parsed> routes) {
			this.path = path;
			this.match = (routes.size() == 1) ? routes.get(0).pattern().filterMatch()
					: FilterMatch.regex(RoutePattern.anyOf(routes.stream().map(HttpRoutes.Parsed::pattern).toList()));
			this.method = HttpRoutes.commonMethod(routes);
		}

		@Override
		public String path() {
			return this.path.name();
		}

		@Override
		public boolean matches(String method, String requestPath) {
			return (this.method == null || this.method.equalsIgnoreCase(method)) && this.match.matches(requestPath);
		}

	}

}
