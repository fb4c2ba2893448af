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
 * names one.
 */
final class EnvoyFilterConfig {

	/** The sidecar's worker threads ({@code --concurrency}). */
	static final int WORKERS = 2;

	private EnvoyFilterConfig() {
	}

	static String json(Fence fence) {
		List<String> paths = new ArrayList<>();
		for (FencePath path : fence.paths()) {
			for (String route : path.routes()) {
				for (String method : path.methods().isEmpty() ? List.of("") : path.methods()) {
					paths.add(String.format(
							"    {\"name\": \"%s\", \"match\": %s,%n     \"max_concurrency\": %d, \"max_queue\": %d, "
									+ "\"queue_timeout_ms\": %d}",
							path.name(), match(route, method), path.permits(), perWorker(path.maxQueue()),
							path.queueTimeout().toMillis()));
				}
			}
		}
		int local = (fence.localPermits() != null) ? fence.localPermits() : fence.poolSize() - fence.pathPermits();
		return String.format(
				"{%n  \"paths\": [%n%s%n  ],%n  \"local\": {\"max_concurrency\": %d, \"max_queue\": %d, "
						+ "\"queue_timeout_ms\": %d}%n}%n",
				String.join(",\n", paths), local, perWorker(fence.localMaxQueue()),
				fence.localQueueTimeout().toMillis());
	}

	private static String match(String route, String method) {
		String kind = route.endsWith("/**") ? "\"prefix\": \"" + route.substring(0, route.length() - 3) + "\""
				: "\"exact\": \"" + route + "\"";
		return "{" + kind + (method.isEmpty() ? "" : ", \"method\": \"" + method + "\"") + "}";
	}

	private static int perWorker(int maxQueue) {
		return (maxQueue + WORKERS - 1) / WORKERS;
	}

}
