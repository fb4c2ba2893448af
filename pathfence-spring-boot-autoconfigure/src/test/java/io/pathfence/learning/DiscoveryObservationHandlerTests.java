package io.pathfence.learning;

import java.net.URI;
import java.util.Map;
import java.util.Set;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.http.HttpMethod;
import org.springframework.http.client.observation.ClientRequestObservationContext;
import org.springframework.http.server.observation.ServerRequestObservationContext;
import org.springframework.mock.http.client.MockClientHttpRequest;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import io.pathfence.core.PathFence;
import io.pathfence.web.PathFenceFilter;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which client observations {@link DiscoveryObservationHandler} attributes to which
 * server request, with Micrometer's own registry and no server.
 */
class DiscoveryObservationHandlerTests {

	private final LearnedPaths learned = LearnedPathsTests.learned(PathFence.builder(10).build(), false, 16, 256, 1);

	private final ObservationRegistry registry = ObservationRegistry.create();

	DiscoveryObservationHandlerTests() {
		this.registry.observationConfig().observationHandler(new DiscoveryObservationHandler(this.learned));
	}

	@Test
	void callsMadeWithinTheRequestAreAttributedToItsRouteByHostAndPort() {
		serve(new MockHttpServletRequest("GET", "/orders/7"), "/orders/{id}", () -> {
			call("http://payment.internal:8081/charges");
			call("http://payment.internal:8081/refunds");
			call("https://shipping.internal/rates");
		});
		assertThat(this.learned.confirmedSets())
			.isEqualTo(Map.of("GET /orders/{id}", Set.of("payment.internal:8081", "shipping.internal:443")));
		assertThat(this.learned.report().routes().get(0).calls()).containsEntry("payment.internal:8081", 2L);
	}

	@Test
	void aClientsRemoteServiceNameNamesTheDownstream() {
		serve(new MockHttpServletRequest("POST", "/orders"), "/orders", () -> {
			ClientRequestObservationContext context = new ClientRequestObservationContext(
					new MockClientHttpRequest(HttpMethod.POST, URI.create("http://10.0.0.7:8080/charges")));
			context.setRemoteServiceName("payment");
			Observation.createNotStarted("http.client.requests", () -> context, this.registry).start().stop();
		});
		assertThat(this.learned.confirmedSets()).isEqualTo(Map.of("POST /orders", Set.of("payment")));
	}

	@Test
	void aCallOnAThreadTheObservationDidNotReachIsNotAttributed() throws Exception {
		serve(new MockHttpServletRequest("GET", "/carts/1"), "/carts/{id}", () -> {
			Thread elsewhere = new Thread(() -> call("http://payment.internal:8081/charges"));
			elsewhere.start();
			join(elsewhere);
		});
		assertThat(this.learned.confirmedSets()).isEqualTo(Map.of("GET /carts/{id}", Set.of()));
	}

	@Test
	void requestsTheFenceTurnedAwayOrParkedTeachNothing() {
		MockHttpServletRequest rejected = new MockHttpServletRequest("GET", "/carts/1");
		rejected.setAttribute(PathFenceFilter.REJECTED_ATTRIBUTE, "local");
		serve(rejected, "/carts/{id}", () -> {
		});
		MockHttpServletRequest parked = new MockHttpServletRequest("GET", "/carts/2");
		parked.setAttribute(PathFenceFilter.PARKED_ATTRIBUTE, Boolean.TRUE);
		serve(parked, "/carts/{id}", () -> {
		});
		assertThat(this.learned.confirmedSets()).isEmpty();
		// The control: the same request, neither turned away nor parked, is learned.
		serve(new MockHttpServletRequest("GET", "/carts/3"), "/carts/{id}", () -> {
		});
		assertThat(this.learned.confirmedSets()).containsOnlyKeys("GET /carts/{id}");
	}

	private void serve(MockHttpServletRequest request, String pattern, Runnable handler) {
		ServerRequestObservationContext server = new ServerRequestObservationContext(request,
				new MockHttpServletResponse());
		Observation observation = Observation.createNotStarted("http.server.requests", () -> server, this.registry)
			.start();
		try (Observation.Scope scope = observation.openScope()) {
			server.setPathPattern(pattern);
			handler.run();
		}
		observation.stop();
	}

	private void call(String url) {
		ClientRequestObservationContext context = new ClientRequestObservationContext(
				new MockClientHttpRequest(HttpMethod.GET, URI.create(url)));
		Observation.createNotStarted("http.client.requests", () -> context, this.registry).start().stop();
	}

	private static void join(Thread thread) {
		try {
			thread.join();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
