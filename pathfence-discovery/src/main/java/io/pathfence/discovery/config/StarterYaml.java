package io.pathfence.discovery.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import io.pathfence.discovery.PathPlan;
import io.pathfence.discovery.ProposedPath;

/**
 * Writes a plan as the starter's {@code pathfence.paths} block: per path its routes, the
 * methods they are limited to, and a number of permits to start from.
 * <p>
 * The starter limits all of a path's routes to the path's methods, so a path whose routes
 * use different methods lists them all, and a route taking any method lists none. Paths
 * come in the order that lets each learned route land on its own path (the starter takes
 * the first path with a matching route); a route that still would not is named in the
 * warnings, as are routes left out.
 */
public final class StarterYaml {

	private StarterYaml() {
	}

	/**
	 * @param plan the paths
	 * @param permits the permits written for every path
	 * @param header comment lines to start with
	 */
	public static GeneratedConfig write(PathPlan plan, int permits, List<String> header) {
		HttpRoutes routes = new HttpRoutes(plan);
		List<PathRule> rules = new ArrayList<>();
		routes.byPath.forEach((path, parsed) -> rules.add(new PathRule(path, parsed)));
		List<PathRule> ordered = Precedence.order(rules, routes.probes);
		StringBuilder yaml = new StringBuilder();
		header.forEach((line) -> yaml.append("# ").append(line).append('\n'));
		if (!ordered.isEmpty()) {
			yaml.append("# Every path starts with ")
				.append(permits)
				.append(" permits (")
				.append(permits * ordered.size())
				.append(" in all): they must fit in pathfence.pool-size.\n")
				.append("# Size them from the service's load, or let pathfence.tuning.enabled=true size them.\n");
		}
		yaml.append("pathfence:\n");
		if (ordered.isEmpty()) {
			yaml.append("  paths: {}\n");
		}
		else {
			yaml.append("  paths:\n");
		}
		for (PathRule rule : ordered) {
			ProposedPath path = rule.path;
			yaml.append("    ").append(path.name()).append(":\n");
			yaml.append("      # calls ")
				.append(path.downstreamSet())
				.append(String.format(Locale.ROOT, "; %d route%s, %d requests%n", rule.routes.size(),
						(rule.routes.size() == 1) ? "" : "s", path.requests()));
			yaml.append("      permits: ").append(permits).append('\n');
			yaml.append("      routes:\n");
			for (HttpRoutes.Parsed route : rule.routes) {
				yaml.append("        - ").append(quoted(route.route().pattern())).append('\n');
			}
			if (!rule.methods.isEmpty()) {
				yaml.append("      methods:\n");
				rule.methods.forEach((method) -> yaml.append("        - ").append(method).append('\n'));
			}
		}
		if (!plan.local().isEmpty()) {
			yaml.append("# Local (they call no downstream): ")
				.append(String.join(", ", plan.local().stream().map((r) -> r.route().toString()).toList()))
				.append('\n');
		}
		for (String warning : plan.warnings()) {
			yaml.append("# ").append(warning).append('\n');
		}
		List<String> warnings = new ArrayList<>(routes.warnings);
		warnings.addAll(Precedence.misclassified(ordered, routes.probes, "the starter's routes"));
		return new GeneratedConfig(yaml.toString(), warnings);
	}

	/** A YAML double-quoted scalar: patterns hold braces and asterisks. */
	static String quoted(String value) {
		StringBuilder b = new StringBuilder(value.length() + 2).append('"');
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			switch (c) {
				case '"' -> b.append("\\\"");
				case '\\' -> b.append("\\\\");
				case '\n' -> b.append("\\n");
				case '\t' -> b.append("\\t");
				default -> {
					if (c < 0x20) {
						b.append(String.format(Locale.ROOT, "\\x%02x", (int) c));
					}
					else {
						b.append(c);
					}
				}
			}
		}
		return b.append('"').toString();
	}

	/** A path as the starter matches it: any of its patterns, and one of its methods. */
	private static final class PathRule implements Precedence.Rule {

		final ProposedPath path;

		final List<HttpRoutes.Parsed> routes;

		final Set<String> methods;

		PathRule(ProposedPath path, List<HttpRoutes.Parsed> routes) {
			this.path = path;
			this.routes = routes;
			this.methods = HttpRoutes.methods(routes);
		}

		@Override
		public String path() {
			return this.path.name();
		}

		@Override
		public boolean matches(String method, String requestPath) {
			if (!this.methods.isEmpty() && !this.methods.contains(method)) {
				return false;
			}
			return this.routes.stream().anyMatch((route) -> route.pattern().matches(requestPath));
		}

	}

}
