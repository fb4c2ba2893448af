package io.pathfence.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.pathfence.discovery.LearnedRoute;
import io.pathfence.discovery.LeftLocal;
import io.pathfence.discovery.PathNames;
import io.pathfence.discovery.PathPlan;
import io.pathfence.discovery.ProposedPath;
import io.pathfence.discovery.trace.RouteCriticalPath;
import io.pathfence.discovery.trace.TraceLearning;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What {@code pathfence paths} prints: routes and their downstreams, the proposed paths,
 * each route's critical path, and warnings; as text or as one JSON object.
 */
final class Report {

	private static final ObjectMapper JSON = JsonMapper.builder().build();

	private final String service;

	private final String files;

	private final int traces;

	private final TraceLearning learning;

	private final PathPlan plan;

	private final List<RouteCriticalPath> critical;

	private final List<String> warnings;

	private final Path yaml;

	private final Path filterJson;

	Report(String service, String files, int traces, TraceLearning learning, PathPlan plan,
			List<RouteCriticalPath> critical, List<String> warnings, Path yaml, Path filterJson) {
		this.service = service;
		this.files = files;
		this.traces = traces;
		this.learning = learning;
		this.plan = plan;
		this.critical = critical;
		this.warnings = warnings;
		this.yaml = yaml;
		this.filterJson = filterJson;
	}

	String text() {
		StringBuilder b = new StringBuilder();
		long requests = this.learning.routes().stream().mapToLong(LearnedRoute::requests).sum();
		b.append(String.format(Locale.ROOT, "%s: %s of %d routes, in %d traces (%s)%n%n", this.service,
				requests(requests), this.learning.routes().size(), this.traces, this.files));
		routes(b);
		paths(b);
		criticalPaths(b);
		if (!this.warnings.isEmpty()) {
			b.append("Warnings:\n");
			this.warnings.forEach((w) -> b.append("  ").append(w).append('\n'));
			b.append('\n');
		}
		if (this.yaml != null) {
			b.append("Wrote the starter's pathfence.paths to ").append(this.yaml).append('\n');
		}
		if (this.filterJson != null) {
			b.append("Wrote the filter's configuration to ").append(this.filterJson).append('\n');
		}
		return b.toString();
	}

	private void routes(StringBuilder b) {
		b.append("Routes and the downstreams they call (calls per request):\n");
		int width = this.learning.routes().stream().mapToInt((r) -> r.route().toString().length()).max().orElse(0);
		for (LearnedRoute route : this.learning.routes()) {
			List<String> calls = new ArrayList<>();
			route.calls()
				.forEach((downstream, count) -> calls.add(String.format(Locale.ROOT, "%s %.2f", downstream,
						(route.requests() > 0) ? count / (double) route.requests() : 0.0)));
			b.append(String.format(Locale.ROOT, "  %-" + width + "s  %13s  %s%n", route.route(),
					requests(route.requests()), calls.isEmpty() ? "(local)" : String.join(", ", calls)));
		}
		b.append('\n');
	}

	private void paths(StringBuilder b) {
		b.append(String.format(Locale.ROOT, "Paths (%d, at most %d):%n", this.plan.paths().size(),
				this.plan.maxPaths()));
		int name = PathNames.LOCAL.length();
		int set = 0;
		for (ProposedPath path : this.plan.paths()) {
			name = Math.max(name, path.name().length());
			set = Math.max(set, path.downstreamSet().length());
		}
		String row = "  %-" + name + "s  %-" + Math.max(set, 1) + "s  %s%n";
		for (ProposedPath path : this.plan.paths()) {
			b.append(String.format(Locale.ROOT, row, path.name(), path.downstreamSet(),
					String.join(", ", path.routes().stream().map((r) -> r.route().toString()).toList())));
		}
		List<String> local = new ArrayList<>(this.plan.local().stream().map((r) -> r.route().toString()).toList());
		this.plan.leftLocal().forEach((left) -> local.add(left.route().route() + " (cap)"));
		if (!local.isEmpty()) {
			b.append(String.format(Locale.ROOT, row, PathNames.LOCAL, "", String.join(", ", local)));
		}
		b.append('\n');
	}

	private void criticalPaths(StringBuilder b) {
		b.append("Critical path of each route's requests (median share per request; rules of the"
				+ " DeathStarBench critical-path study, section 3.1):\n");
		for (RouteCriticalPath path : this.critical) {
			RouteCriticalPath.Share dominant = path.dominantDownstream();
			b.append(String.format(Locale.ROOT, "  %s: %s, median %.1f ms, %s%n", path.route(),
					requests(path.requests()), path.medianNanos() / 1e6,
					(dominant != null) ? "dominated by " + dominant.service() : "calls no downstream"));
			b.append("    by downstream: ").append(shares(path.byDownstream(), path.service())).append('\n');
			b.append("    by service:    ").append(shares(path.byService(), path.service())).append('\n');
		}
		b.append('\n');
	}

	private static String requests(long n) {
		return n + ((n == 1) ? " request" : " requests");
	}

	private static String shares(List<RouteCriticalPath.Share> shares, String own) {
		List<String> parts = new ArrayList<>();
		for (RouteCriticalPath.Share share : shares) {
			parts.add(String.format(Locale.ROOT, "%s%s %.1f%%", share.service(),
					share.service().equals(own) ? " (own)" : "", share.median() * 100));
		}
		return String.join(", ", parts);
	}

	String json() {
		ObjectNode root = JSON.createObjectNode();
		root.put("service", this.service);
		root.put("files", this.files);
		root.put("traces", this.traces);
		ArrayNode routes = root.putArray("routes");
		for (LearnedRoute route : this.learning.routes()) {
			ObjectNode r = routes.addObject();
			r.put("method", route.route().method());
			r.put("pattern", route.route().pattern());
			r.put("requests", route.requests());
			ObjectNode calls = r.putObject("calls");
			route.calls().forEach(calls::put);
			r.put("path", this.plan.pathOf(route.route()).orElse(PathNames.LOCAL));
		}
		ArrayNode paths = root.putArray("paths");
		for (ProposedPath path : this.plan.paths()) {
			ObjectNode p = paths.addObject();
			p.put("name", path.name());
			ArrayNode downstreams = p.putArray("downstreams");
			path.downstreams().forEach(downstreams::add);
			ArrayNode members = p.putArray("routes");
			path.routes().forEach((r) -> members.add(r.route().toString()));
		}
		ArrayNode local = root.putArray("local");
		this.plan.local().forEach((r) -> local.add(r.route().toString()));
		ArrayNode leftLocal = root.putArray("left_local");
		for (LeftLocal left : this.plan.leftLocal()) {
			ObjectNode l = leftLocal.addObject();
			l.put("route", left.route().route().toString());
			l.put("reason", left.reason().name().toLowerCase(Locale.ROOT));
		}
		ArrayNode critical = root.putArray("critical_paths");
		for (RouteCriticalPath path : this.critical) {
			ObjectNode c = critical.addObject();
			c.put("route", path.route().toString());
			c.put("requests", path.requests());
			c.put("median_ms", path.medianNanos() / 1e6);
			RouteCriticalPath.Share dominant = path.dominantDownstream();
			if (dominant != null) {
				c.put("dominant_downstream", dominant.service());
			}
			else {
				c.putNull("dominant_downstream");
			}
			shares(c.putObject("by_downstream"), path.byDownstream());
			shares(c.putObject("by_service"), path.byService());
		}
		ArrayNode warnings = root.putArray("warnings");
		this.warnings.forEach(warnings::add);
		root.put("starter_yaml", (this.yaml != null) ? this.yaml.toString() : null);
		root.put("filter_json", (this.filterJson != null) ? this.filterJson.toString() : null);
		return JSON.writeValueAsString(root) + "\n";
	}

	private static void shares(ObjectNode node, List<RouteCriticalPath.Share> shares) {
		for (RouteCriticalPath.Share share : shares) {
			node.put(share.service(), Math.round(share.median() * 10000) / 10000.0);
		}
	}

}
