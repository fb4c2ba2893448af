package io.pathfence.demo.service;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import reactor.core.publisher.Mono;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.core.env.Environment;
import org.springframework.http.ResponseEntity;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import io.pathfence.demo.topology.Route;
import io.pathfence.demo.topology.Service;

/**
 * An event-driven service (the {@code async} mode, WebFlux on Netty): the same routes,
 * work and calls as {@link BlockingRoutes}, but no thread waits for anything. A request
 * computes on one of the {@link WorkerPool}'s workers, waits its wait time on a timer (a
 * non-blocking database driver), then makes its calls one after the other without
 * blocking, each answer resuming it on an event loop.
 */
@RestController
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
class EventDrivenRoutes {

	private final Service service;

	private final SimulatedWork work;

	private final WorkerPool workers;

	private final EventDrivenSlots slots;

	private final Occupancy occupancy;

	private final Map<String, ReactiveDownstream> downstreams;

	EventDrivenRoutes(Service service, SimulatedWork work, WorkerPool workers, Occupancy occupancy,
			Environment environment, @Value("${demo.call-timeout:10s}") Duration callTimeout) {
		this.service = service;
		this.work = work;
		this.workers = workers;
		this.slots = (work.workSlots() > 0) ? new EventDrivenSlots(work.workSlots()) : null;
		this.occupancy = occupancy;
		this.downstreams = Downstreams.of(service, environment,
				(name, url) -> new ReactiveDownstream(url, callTimeout));
	}

	@RequestMapping("/**")
	Mono<ResponseEntity<String>> serve(ServerHttpRequest request) {
		Optional<Route> found = this.service.route(request.getMethod().name(), request.getPath().value());
		if (found.isEmpty()) {
			return Mono.just(ResponseEntity.notFound().build());
		}
		String path = Optional.ofNullable(request.getHeaders().getFirst(DemoHeaders.PATH))
			.orElse(DemoHeaders.UNLABELLED);
		return Mono.defer(() -> {
			Occupancy.Scope working = this.occupancy.working(path);
			return ownWork().then(calls(found.get(), path)).doFinally((signal) -> working.close());
		});
	}

	private Mono<Void> ownWork() {
		Duration wait = this.work.waitTime();
		Mono<Void> work = this.workers.compute(this.work::burnCpu)
			.then(wait.isZero() ? Mono.empty() : Mono.delay(wait).then());
		return (this.slots != null) ? this.slots.holding(work) : work;
	}

	private Mono<ResponseEntity<String>> calls(Route route, String path) {
		if (route.calls().isEmpty()) {
			return Mono.just(ResponseEntity.ok("{\"ok\":true}"));
		}
		return Mono.defer(() -> {
			Occupancy.Scope calling = this.occupancy.calling(path);
			return call(route, 0, path).doFinally((signal) -> calling.close());
		});
	}

	/** The calls from the {@code index}-th on, stopping at the first that fails. */
	private Mono<ResponseEntity<String>> call(Route route, int index, String path) {
		var call = route.calls().get(index);
		return this.downstreams.get(call.service())
			.send(call.method(), call.path(), path)
			.flatMap((answer) -> (!answer.getStatusCode().is2xxSuccessful() || index == route.calls().size() - 1)
					? Mono.just(answer) : call(route, index + 1, path));
	}

}
