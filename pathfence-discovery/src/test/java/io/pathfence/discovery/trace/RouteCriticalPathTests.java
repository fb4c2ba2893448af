package io.pathfence.discovery.trace;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.pathfence.discovery.Route;

import static io.pathfence.discovery.trace.Spans.MS;
import static io.pathfence.discovery.trace.Spans.server;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class RouteCriticalPathTests {

	private static Span[] request(String trace, long aEnd, long bEnd) {
		Span[] spans = { server("r", null, "orders", 0, 100, "http.route", "/x"), server("a", "r", "a", 0, aEnd),
				server("b", "r", "b", 0, bEnd) };
		for (int i = 0; i < spans.length; i++) {
			Span s = spans[i];
			spans[i] = new Span(trace, s.spanId(), s.parentId(), s.kind(), s.name(), s.service(), null, null,
					s.startNanos(), s.durationNanos(), s.tags());
		}
		return spans;
	}

	@Test
	void eachServicesShareIsItsMedianOverTheRequestsCountingThoseItMissed() {
		// b is on the path in one request of three only: its median share is 0.
		List<Span> spans = new java.util.ArrayList<>();
		spans.addAll(List.of(request("t1", 60, 30)));
		spans.addAll(List.of(request("t2", 50, 20)));
		spans.addAll(List.of(request("t3", 10, 90)));
		TraceLearning learning = TraceLearning.of("orders", TraceTree.of(spans));
		RouteCriticalPath path = RouteCriticalPath.of(learning).get(0);
		assertThat(path.route()).isEqualTo(Route.of("", "/x"));
		assertThat(path.requests()).isEqualTo(3);
		assertThat(path.medianNanos()).isEqualTo(100 * MS);
		assertThat(path.byService()).extracting(RouteCriticalPath.Share::service).containsExactly("a", "orders", "b");
		// a: 0.6, 0.5, 0 (b overlaps it); orders: 0.4, 0.5, 0.1; b: 0, 0, 0.9.
		assertThat(path.byService().get(0).median()).isCloseTo(0.5, within(1e-9));
		assertThat(path.byService().get(1).median()).isCloseTo(0.4, within(1e-9));
		assertThat(path.byService().get(2).median()).isCloseTo(0.0, within(1e-9));
		assertThat(path.dominantDownstream().service()).isEqualTo("a");
		assertThat(path.dominantService().service()).isEqualTo("a");
	}

	@Test
	void theMedianOfAnEvenNumberIsTheMeanOfTheMiddleTwo() {
		assertThat(RouteCriticalPath.median(new double[] { 4, 1, 3, 2 })).isEqualTo(2.5);
		assertThat(RouteCriticalPath.median(new double[] { 3 })).isEqualTo(3);
	}

	@Test
	void aLocalRouteHasNoDominantDownstream() {
		TraceLearning learning = TraceLearning.of("orders",
				TraceTree.of(List.of(server("r", null, "orders", 0, 10, "http.route", "/x"))));
		RouteCriticalPath path = RouteCriticalPath.of(learning).get(0);
		assertThat(path.dominantDownstream()).isNull();
		assertThat(path.dominantService().service()).isEqualTo("orders");
	}

}
