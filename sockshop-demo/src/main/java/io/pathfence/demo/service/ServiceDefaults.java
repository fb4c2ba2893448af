package io.pathfence.demo.service;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.pathfence.demo.topology.Fence;
import io.pathfence.demo.topology.FencePath;
import io.pathfence.demo.topology.Service;
import io.pathfence.demo.topology.Tuning;

/**
 * A service's topology as Spring Boot properties: Tomcat's pools, the simulated work, and
 * the starter's {@code pathfence.*} reservations and tuning where the service has a
 * fence. They are the application's default properties, so the command line (a mode's
 * {@code --pathfence.enabled=true}) and the environment (Kubernetes'
 * {@code PATHFENCE_ENABLED}) win over them.
 */
final class ServiceDefaults {

	private ServiceDefaults() {
	}

	/**
	 * The service's properties.
	 * @param learnsPaths whether the service learns its paths, so that the fence's are
	 * left out (its pool and local reservation stay)
	 */
	static Map<String, Object> of(Service service, boolean learnsPaths) {
		Map<String, Object> properties = new LinkedHashMap<>();
		properties.put("server.tomcat.threads.max", service.pools().threads());
		properties.put("server.tomcat.threads.min-spare", service.pools().minSpare());
		properties.put("server.tomcat.max-connections", service.pools().maxConnections());
		properties.put("server.tomcat.accept-count", service.pools().acceptCount());
		properties.put("demo.cpu-time", service.cpuTime().toNanos() + "ns");
		properties.put("demo.wait-time", service.waitTime().toNanos() + "ns");
		if (service.workSlots() != null) {
			properties.put("demo.work-slots", service.workSlots());
		}
		Tuning tuning = (service.fence() != null) ? service.fence().tuning() : Tuning.DEFAULTS;
		properties.put("pathfence.tuning.interval", tuning.interval().toMillis() + "ms");
		properties.put("pathfence.tuning.window", tuning.window().toMillis() + "ms");
		properties.put("pathfence.tuning.period", tuning.period().toMillis() + "ms");
		properties.put("pathfence.tuning.max-step", tuning.maxStep());
		properties.put("pathfence.tuning.hysteresis", tuning.hysteresis());
		Fence fence = service.fence();
		if (fence != null) {
			properties.put("pathfence.pool-size", fence.poolSize());
			for (FencePath path : learnsPaths ? List.<FencePath>of() : fence.paths()) {
				String prefix = "pathfence.paths." + path.name() + ".";
				properties.put(prefix + "permits", path.permits());
				properties.put(prefix + "routes", String.join(",", path.routes()));
				if (!path.methods().isEmpty()) {
					properties.put(prefix + "methods", String.join(",", path.methods()));
				}
				properties.put(prefix + "max-queue", path.maxQueue());
				properties.put(prefix + "queue-timeout", path.queueTimeout().toMillis() + "ms");
			}
			if (fence.localPermits() != null) {
				properties.put("pathfence.local.permits", fence.localPermits());
			}
			properties.put("pathfence.local.max-queue", fence.localMaxQueue());
			properties.put("pathfence.local.queue-timeout", fence.localQueueTimeout().toMillis() + "ms");
		}
		return properties;
	}

}
