package io.pathfence.learning;

import java.time.Duration;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.pathfence.core.PathFence;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How {@link LearnedPaths} turns served requests into paths: confirmations, the caps, the
 * names, and what enforce adds to the fence.
 */
class LearnedPathsTests {

	private final PathFence fence = PathFence.builder(10).path("payment", 2, 5, Duration.ZERO).build();

	private LearnedPaths learned(boolean enforce, int maxPaths, int maxRoutes, int confirmations) {
		return learned(this.fence, enforce, maxPaths, maxRoutes, confirmations);
	}

	/** Placement passes run on the calling thread, so each test reads them at once. */
	static LearnedPaths learned(PathFence fence, boolean enforce, int maxPaths, int maxRoutes, int confirmations) {
		return new LearnedPaths(fence, enforce, new LearnedPaths.Settings(maxPaths, maxRoutes, 16, confirmations, 2, 7,
				Duration.ofMillis(300), 1, Duration.ZERO), System::nanoTime, Runnable::run);
	}

	private static void serve(LearnedPaths learned, String pattern, int times, String... downstreams) {
		Map<String, Integer> calls = new java.util.LinkedHashMap<>();
		for (String downstream : downstreams) {
			calls.merge(downstream, 1, Integer::sum);
		}
		for (int i = 0; i < times; i++) {
			learned.served("GET", pattern, calls);
		}
	}

	@Test
	void routeTakesASetOnlyAfterTheConfirmationsAndOneOddRequestMovesNothing() {
		LearnedPaths learned = learned(false, 16, 256, 3);
		serve(learned, "/orders/{id}", 2, "payment");
		assertThat(learned.confirmedSets()).isEmpty();
		serve(learned, "/orders/{id}", 1, "payment");
		assertThat(learned.confirmedSets()).containsEntry("GET /orders/{id}", Set.of("payment"));
		serve(learned, "/orders/{id}", 1, "payment", "shipping");
		serve(learned, "/orders/{id}", 1, "payment");
		serve(learned, "/orders/{id}", 2, "payment", "shipping");
		assertThat(learned.confirmedSets()).containsEntry("GET /orders/{id}", Set.of("payment"));
		serve(learned, "/orders/{id}", 1, "payment", "shipping");
		assertThat(learned.confirmedSets()).containsEntry("GET /orders/{id}", Set.of("payment", "shipping"));
	}

	@Test
	void routesWithTheSameSetShareOnePathNamedFromTheSetAndRoutesCallingNothingAreLocal() {
		LearnedPaths learned = learned(false, 16, 256, 1);
		serve(learned, "/orders", 1, "shipping", "payment");
		serve(learned, "/carts/{id}", 1, "payment", "shipping", "payment");
		serve(learned, "/ping", 1);
		LearnedPaths.Report report = learned.report();
		assertThat(report.paths()).extracting(LearnedPaths.PathReport::name, LearnedPaths.PathReport::downstreams)
			.containsExactly(org.assertj.core.groups.Tuple.tuple("payment_shipping", "payment+shipping"));
		assertThat(report.routes()).extracting(LearnedPaths.RouteReport::pattern, LearnedPaths.RouteReport::path)
			.containsExactly(org.assertj.core.groups.Tuple.tuple("/carts/{id}", "payment_shipping"),
					org.assertj.core.groups.Tuple.tuple("/orders", "payment_shipping"),
					org.assertj.core.groups.Tuple.tuple("/ping", PathFence.LOCAL));
		assertThat(report.routes().get(0).calls()).containsEntry("payment", 2L).containsEntry("shipping", 1L);
		assertThat(report.yaml()).contains("  paths:\n    payment_shipping:\n")
			.contains("\"/carts/{id}\"")
			.contains("\"/orders\"");
	}

	@Test
	void observingAddsNothingToTheFenceAndClassifiesNothing() {
		LearnedPaths learned = learned(false, 16, 256, 1);
		serve(learned, "/shipments", 1, "shipping");
		assertThat(this.fence.pathNames()).containsExactly("payment", PathFence.LOCAL);
		assertThat(learned.isEmpty()).isTrue();
		assertThat(learned.report().paths().get(0).reserved()).isFalse();
	}

	@Test
	void enforcingAddsReservationsFromLocalAndAvoidsHandConfiguredNames() {
		LearnedPaths learned = learned(true, 16, 256, 1);
		serve(learned, "/charges", 1, "payment");
		serve(learned, "/shipments", 1, "shipping");
		assertThat(this.fence.pathNames()).containsExactly("payment", "payment-2", "shipping", PathFence.LOCAL);
		assertThat(this.fence.figures("shipping").permits()).isEqualTo(2);
		assertThat(this.fence.figures("shipping").maxQueue()).isEqualTo(7);
		assertThat(this.fence.queueTimeout("shipping")).isEqualTo(Duration.ofMillis(300));
		assertThat(this.fence.figures(PathFence.LOCAL).permits()).isEqualTo(4);
		assertThat(learned.pathOf("GET", "/charges")).isEqualTo("payment-2");
		assertThat(learned.pathOf("POST", "/charges")).isNull();
		assertThat(learned.pathOf("GET", "/shipments")).isEqualTo("shipping");
	}

	@Test
	void setsBeyondMaxPathsStayLocalWithAWarning() {
		LearnedPaths learned = learned(true, 1, 256, 1);
		serve(learned, "/shipments", 5, "shipping");
		serve(learned, "/charges", 1, "payment");
		assertThat(this.fence.pathNames()).containsExactly("payment", "shipping", PathFence.LOCAL);
		assertThat(learned.pathOf("GET", "/charges")).isNull();
		assertThat(learned.report().warnings()).singleElement()
			.asString()
			.contains("GET /charges")
			.contains("pathfence.discovery.max-paths");
		assertThat(learned.report().yaml()).contains("left local");
	}

	@Test
	void routesBeyondMaxRoutesAreNotLearnedWithAWarning() {
		LearnedPaths learned = learned(false, 16, 2, 1);
		serve(learned, "/a", 1, "x");
		serve(learned, "/b", 1, "y");
		serve(learned, "/c", 1, "z");
		assertThat(learned.confirmedSets()).containsOnlyKeys("GET /a", "GET /b");
		assertThat(learned.report().warnings()).singleElement()
			.asString()
			.contains("GET /c")
			.contains("pathfence.discovery.max-routes");
	}

	@Test
	void whenTheLocalReservationHasNothingToGiveTheRouteStaysLocal() {
		PathFence full = PathFence.builder(3).path("payment", 2, 5, Duration.ZERO).build();
		LearnedPaths learned = learned(full, true, 16, 256, 1);
		serve(learned, "/shipments", 1, "shipping");
		assertThat(full.pathNames()).containsExactly("payment", PathFence.LOCAL);
		assertThat(learned.pathOf("GET", "/shipments")).isNull();
		assertThat(learned.report().warnings()).singleElement().asString().contains("no permit to give");
	}

	@Test
	void aRouteThatStopsCallingMovesBackToLocalAfterTheConfirmations() {
		LearnedPaths learned = learned(true, 16, 256, 2);
		serve(learned, "/orders", 2, "shipping");
		assertThat(learned.pathOf("GET", "/orders")).isEqualTo("shipping");
		serve(learned, "/orders", 1);
		assertThat(learned.pathOf("GET", "/orders")).isEqualTo("shipping");
		serve(learned, "/orders", 1);
		assertThat(learned.pathOf("GET", "/orders")).isNull();
		// The path keeps its reservation: tasks may be running on it.
		assertThat(this.fence.hasPath("shipping")).isTrue();
	}

}
