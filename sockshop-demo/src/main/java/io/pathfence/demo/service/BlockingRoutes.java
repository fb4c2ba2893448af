package io.pathfence.demo.service;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import jakarta.servlet.http.HttpServletRequest;

import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.core.env.Environment;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import io.pathfence.demo.topology.Call;
import io.pathfence.demo.topology.Route;
import io.pathfence.demo.topology.Service;

/**
 * A synchronous service (Tomcat, on platform or virtual threads): every request the
 * topology gives it is answered on one thread, which does the service's own work and then
 * makes each call in turn, blocked until it is answered. A failed call ends the request
 * with its status, as a service that needs each answer does.
 */
@RestController
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
class BlockingRoutes {

	private final Service service;

	private final SimulatedWork work;

	private final Occupancy occupancy;

	private final Map<String, Downstream> downstreams;

	BlockingRoutes(Service service, SimulatedWork work, Occupancy occupancy, Environment environment,
			@Value("${demo.call-timeout:10s}") Duration callTimeout,
			ObjectProvider<ObservationRegistry> observationRegistry) {
		this.service = service;
		this.work = work;
		this.occupancy = occupancy;
		// Calls are observed only for PathFence's discovery to learn from, or for their
		// client spans when traces are exported, so that the other modes do not pay for
		// observations nothing reads.
		boolean learning = !"off".equalsIgnoreCase(environment.getProperty("pathfence.discovery.mode", "off"));
		boolean tracing = environment.getProperty("management.tracing.export.enabled", Boolean.class, true);
		ObservationRegistry observations = (learning || tracing)
				? observationRegistry.getIfAvailable(() -> ObservationRegistry.NOOP) : ObservationRegistry.NOOP;
		this.downstreams = Downstreams.of(service, environment,
				(name, url) -> new Downstream(name, url, callTimeout, observations));
	}

	@RequestMapping("/**")
	ResponseEntity<String> serve(HttpServletRequest request) {
		Optional<Route> found = this.service.route(request.getMethod(), request.getRequestURI());
		if (found.isEmpty()) {
			return ResponseEntity.notFound().build();
		}
		String path = Optional.ofNullable(request.getHeader(DemoHeaders.PATH)).orElse(DemoHeaders.UNLABELLED);
		try (var working = this.occupancy.working(path)) {
			this.work.perform();
			Route route = found.get();
			if (route.calls().isEmpty()) {
				return ResponseEntity.ok("{\"ok\":true}");
			}
			try (var calling = this.occupancy.calling(path)) {
				ResponseEntity<String> answer = null;
				for (Call call : route.calls()) {
					answer = this.downstreams.get(call.service()).send(call.method(), call.path(), path);
					if (!answer.getStatusCode().is2xxSuccessful()) {
						return answer;
					}
				}
				return answer;
			}
		}
	}

}
