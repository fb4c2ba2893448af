package io.pathfence.demo.run;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import io.pathfence.cli.traces.MalformedTraceException;
import io.pathfence.cli.traces.TraceFile;
import io.pathfence.cli.traces.TraceFormat;
import io.pathfence.discovery.LearnedRoute;
import io.pathfence.discovery.PathPlan;
import io.pathfence.discovery.PathPlanner;
import io.pathfence.discovery.ProposedPath;
import io.pathfence.discovery.config.FilterJson;
import io.pathfence.discovery.config.GeneratedConfig;
import io.pathfence.discovery.trace.InvalidTraceException;
import io.pathfence.discovery.trace.TraceLearning;
import io.pathfence.discovery.trace.TraceTree;
import io.pathfence.demo.topology.Fence;

/**
 * The PathFence filter's configuration for the shared service, learned from a trace file
 * as {@code pathfence paths --service NAME --filter-json} learns it (the same reader,
 * learning, planner and writer): each set of downstreams the service's routes call is a
 * path, matched by its routes. Nothing of the topology's fence but its size is used: the
 * pool is split evenly between the learned paths and local requests (the rest to local,
 * as discovery's learned reservations start), and every reservation queues as the
 * topology lets its local requests queue. With tuning, the filter sizes each limit online
 * from there, as the envoy mode's does.
 */
final class LearnedFilterConfig {

	private static final ObjectMapper JSON = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

	private LearnedFilterConfig() {
	}

	/**
	 * What was learned: the filter's configuration and a few lines saying which routes
	 * went to which path.
	 */
	record Learned(String json, List<String> summary) {
	}

	/**
	 * Learns the configuration from the traces in {@code traces} (Zipkin v2 JSON).
	 * @throws IllegalStateException when the file cannot be read as traces, or holds no
	 * request of {@code service}
	 */
	static Learned from(Path traces, String service, Fence fence, boolean tuned) throws IOException {
		TraceLearning learning;
		try {
			learning = TraceLearning.of(service, TraceTree.of(TraceFile.read(traces, TraceFormat.ZIPKIN)));
		}
		catch (MalformedTraceException | InvalidTraceException ex) {
			throw new IllegalStateException(traces + ": " + ex.getMessage(), ex);
		}
		if (learning.requests().isEmpty()) {
			throw new IllegalStateException("no request of " + service + " in " + traces + " (spans of "
					+ learning.services() + "): are its traces exported?");
		}
		PathPlan plan = PathPlanner.withDefaults().plan(learning.routes());
		int paths = plan.paths().size();
		int permits = Math.max(1, fence.poolSize() / (paths + 1));
		int local = Math.max(1, fence.poolSize() - permits * paths);
		GeneratedConfig generated = FilterJson.write(plan, permits);
		ObjectNode config = (ObjectNode) JSON.readTree(generated.text());
		for (JsonNode path : config.get("paths")) {
			ObjectNode entry = (ObjectNode) path;
			queue(entry, fence);
			if (tuned) {
				entry.putObject("tuning").put("min", 1).put("max", fence.poolSize());
			}
		}
		ObjectNode localEntry = config.putObject("local").put("max_concurrency", local);
		queue(localEntry, fence);
		if (tuned) {
			config.set("tuning", JSON.readTree("{" + EnvoyFilterConfig.TUNING + "}").get("tuning"));
		}
		List<String> summary = new ArrayList<>();
		for (ProposedPath path : plan.paths()) {
			summary.add(String.format("path %s (%d permits): %s", path.name(), permits,
					path.routes().stream().map((route) -> route.route().toString()).toList()));
		}
		summary.add(String.format("local (%d permits): %s", local,
				plan.local().stream().map(LearnedRoute::route).map(Object::toString).toList()));
		summary.addAll(generated.warnings().stream().map((warning) -> "warning: " + warning).toList());
		summary.addAll(plan.warnings().stream().map((warning) -> "warning: " + warning).toList());
		return new Learned(JSON.writeValueAsString(config) + "\n", summary);
	}

	private static void queue(ObjectNode entry, Fence fence) {
		entry.put("max_queue", EnvoyFilterConfig.perWorker(fence.localMaxQueue()));
		entry.put("queue_timeout_ms", fence.localQueueTimeout().toMillis());
	}

}
