package io.pathfence.discovery.trace;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

import io.pathfence.discovery.LearnedRoute;
import io.pathfence.discovery.Route;

import static io.pathfence.discovery.trace.Spans.client;
import static io.pathfence.discovery.trace.Spans.internal;
import static io.pathfence.discovery.trace.Spans.server;
import static org.assertj.core.api.Assertions.assertThat;

class TraceLearningTests {

	private static TraceLearning learn(String service, Span... spans) {
		return TraceLearning.of(service, TraceTree.of(List.of(spans)));
	}

	private static LearnedRoute learned(String route, long requests, Object... calls) {
		Map<String, Long> map = new TreeMap<>();
		for (int i = 0; i < calls.length; i += 2) {
			map.put((String) calls[i], ((Integer) calls[i + 1]).longValue());
		}
		String[] parts = route.split(" ", 2);
		return new LearnedRoute(Route.of(parts[0], parts[1]), requests, new TreeMap<>(map));
	}

	@Test
	void aRoutesDownstreamsAreTheCallsItsRequestsMadeIncludingFromItsOwnTasks() {
		TraceLearning learning = learn("orders",
				server("r", "gw", "orders", 0, 100, "http.method", "POST", "http.route", "/orders"),
				client("c1", "r", "orders", "payment", 10, 20), client("c2", "r", "orders", "payment", 20, 30),
				internal("task", "r", "orders", 30, 80), client("c3", "task", "orders", "shipping", 40, 50),
				server("p", "c1", "payment", 11, 19, "http.route", "/pay"),
				client("p1", "p", "payment", "bank", 12, 18));
		assertThat(learning.routes()).containsExactly(learned("POST /orders", 1, "payment", 2, "shipping", 1));
		assertThat(learning.requests().get(Route.of("POST", "/orders"))).hasSize(1);
		assertThat(learning.services()).containsExactly("orders", "payment");
	}

	@Test
	void aSpanAnotherServiceRecordedRightBelowTheServicesOwnIsACallToIt() {
		TraceLearning learning = learn("orders", server("r", null, "orders", 0, 100, "http.route", "/a"),
				server("u", "r", "user", 10, 20), internal("i", "r", "orders", 20, 40),
				server("c", "i", "carts", 25, 35));
		assertThat(learning.routes()).containsExactly(learned(" /a", 1, "carts", 1, "user", 1));
	}

	@Test
	void aServerSpanNestedInTheServicesOwnIsTheSameRequest() {
		// Two instrumentations of one request (the servlet container's and the
		// framework's).
		TraceLearning learning = learn("orders", server("outer", null, "orders", 0, 100, "http.path", "/a/42"),
				server("inner", "outer", "orders", 1, 99, "http.route", "/a/{id}", "http.method", "GET"),
				client("c", "inner", "orders", "user", 10, 20));
		assertThat(learning.routes()).containsExactly(learned(" /a/{id}", 1, "user", 1));
	}

	@Test
	void aRequestTheServiceMakesToItselfIsARequestOfItsOwn() {
		TraceLearning learning = learn("orders",
				server("r", null, "orders", 0, 100, "http.route", "/a", "http.method", "GET"),
				client("c", "r", "orders", "orders", 10, 50),
				server("r2", "c", "orders", 11, 49, "http.route", "/b", "http.method", "GET"));
		assertThat(learning.routes()).containsExactly(learned("GET /a", 1, "orders", 1), learned("GET /b", 1));
	}

	@Test
	void otherServicesRequestsAreNotTheServices() {
		TraceLearning learning = learn("orders", server("u", null, "user", 0, 10, "http.route", "/u"));
		assertThat(learning.routes()).isEmpty();
		assertThat(learning.services()).containsExactly("user");
	}

}
