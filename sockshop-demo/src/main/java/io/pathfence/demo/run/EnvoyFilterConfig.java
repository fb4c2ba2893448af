package io.pathfence.demo.run;

import java.util.ArrayList;
import java.util.List;

import io.pathfence.demo.topology.Fence;
import io.pathfence.demo.topology.FencePath;

/**
 * The PathFence filter's configuration for the shared service's sidecar, made from the
 * topology's fence: the same paths, permits and queue timeouts as the starter's. The
 * filter counts its queues per Envoy worker, and the sidecar runs two, so each worker
 * queues half of the starter's queue (rounded up). A route pattern ending in {@code /**}
 * becomes a prefix match, any other an exact one, limited to the path's method when it
 * names one. With tuning, the filter sizes each path's limit online from its permits as a
 * start, with the starter's tuning defaults, within 1 and the service's pool.
 */
final class EnvoyFilterConfig {

	/** The sidecar's worker threads ({@code --concurrency}). */
	static final int WORKERS = 2;

	private EnvoyFilterConfig() {
	}

	/**
	 * The top-level {@code tuning} of a tuned run: the starter's defaults (a sample every
	 * 50 ms, a window of 60 s, a decision every 15 s, at most 4 permits a step, changes
	 * of 2 or more).
	 */
	static final String TUNING = "\"tuning\": {\"interval_ms\": 50, \"window_s\": 60, \"period_s\": 15, "
			+ "\"max_step\": 4, \"hysteresis\": 2}";

	/**
	 * A filter that fences nothing (no path, no local limit): the sidecar only proxies,
	 * as it does while the envoy-learned mode's warm-up collects the traces its
	 * configuration is learned from.
	 */
	static final String PASS_THROUGH = "{\"paths\": []}\n";

	static String json(Fence fence) {
		return json(fence, false);
	}

	static String json(Fence fence, boolean tuned) {
		List<String> paths = new ArrayList<>();
		for (FencePath path : fence.paths()) {
			for (String route : path.routes()) {
				for (String method : path.methods().isEmpty() ? List.of("") : path.methods()) {
					String bounds = tuned ? String.format(",%n     \"tuning\": {\"min\": 1, \"max\": %d}",
							Math.max(path.permits(), fence.poolSize())) : "";
					paths.add(String.format(
							"    {\"name\": \"%s\", \"match\": %s,%n     \"max_concurrency\": %d, \"max_queue\": %d, "
									+ "\"queue_timeout_ms\": %d%s}",
							path.name(), match(route, method), path.permits(), perWorker(path.maxQueue()),
							path.queueTimeout().toMillis(), bounds));
				}
			}
		}
		int local = (fence.localPermits() != null) ? fence.localPermits() : fence.poolSize() - fence.pathPermits();
		return String.format(
				"{%n  \"paths\": [%n%s%n  ],%n  \"local\": {\"max_concurrency\": %d, \"max_queue\": %d, "
						+ "\"queue_timeout_ms\": %d}%s%n}%n",
				String.join(",\n", paths), local, perWorker(fence.localMaxQueue()),
				fence.localQueueTimeout().toMillis(), tuned ? String.format(",%n  %s", TUNING) : "");
	}

	private static String match(String route, String method) {
		String kind = route.endsWith("/**") ? "\"prefix\": \"" + route.substring(0, route.length() - 3) + "\""
				: "\"exact\": \"" + route + "\"";
		return "{" + kind + (method.isEmpty() ? "" : ", \"method\": \"" + method + "\"") + "}";
	}

	static int perWorker(int maxQueue) {
		return (maxQueue + WORKERS - 1) / WORKERS;
	}

}
