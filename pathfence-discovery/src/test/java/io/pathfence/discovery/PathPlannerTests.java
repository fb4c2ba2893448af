package io.pathfence.discovery;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import static io.pathfence.discovery.Learned.route;
import static org.assertj.core.api.Assertions.assertThat;

class PathPlannerTests {

	private final List<LearnedRoute> shop = List.of(route("POST", "/orders", 12, "payment", "shipping"),
			route("GET", "/orders/{id}", 20, "user", "carts"), route("GET", "/orders", 8, "carts", "user"),
			route("POST", "/orders/{id}/cancel", 3, "shipping", "payment"), route("GET", "/health", 50),
			route("GET", "/catalogue", 30, "catalogue"));

	@Test
	void routesWithTheSameDownstreamsShareOnePathNamedFromThem() {
		PathPlan plan = PathPlanner.withDefaults().plan(this.shop);
		assertThat(plan.paths()).extracting(ProposedPath::name)
			.containsExactly("carts_user", "catalogue", "payment_shipping");
		ProposedPath carts = plan.paths().get(0);
		assertThat(carts.downstreamSet()).isEqualTo("carts+user");
		assertThat(carts.routes()).extracting((r) -> r.route().toString())
			.containsExactly("GET /orders", "GET /orders/{id}");
		assertThat(carts.requests()).isEqualTo(28);
		assertThat(plan.paths().get(2).routes()).extracting((r) -> r.route().toString())
			.containsExactly("POST /orders", "POST /orders/{id}/cancel");
		assertThat(plan.local()).extracting((r) -> r.route().toString()).containsExactly("GET /health");
		assertThat(plan.leftLocal()).isEmpty();
		assertThat(plan.warnings()).isEmpty();
		assertThat(plan.pathOf(Route.of("GET", "/orders"))).contains("carts_user");
		assertThat(plan.pathOf(Route.of("GET", "/health"))).contains("local");
		assertThat(plan.pathOf(Route.of("GET", "/nowhere"))).isEmpty();
	}

	@Test
	void thePlanDoesNotDependOnTheOrderRoutesArriveIn() {
		PathPlan expected = new PathPlanner(2, 3).plan(this.shop);
		Random random = new Random(7);
		for (int i = 0; i < 20; i++) {
			List<LearnedRoute> shuffled = new ArrayList<>(this.shop);
			Collections.shuffle(shuffled, random);
			assertThat(new PathPlanner(2, 3).plan(shuffled)).isEqualTo(expected);
		}
	}

	@Test
	void beyondThePathCapTheLeastUsedSetsStayLocalAndAreReported() {
		PathPlan plan = new PathPlanner(2, 256).plan(this.shop);
		// carts+user: 28 requests, payment+shipping: 15, catalogue: 30.
		assertThat(plan.paths()).extracting(ProposedPath::name).containsExactly("carts_user", "catalogue");
		assertThat(plan.leftLocal()).extracting((left) -> left.route().route().toString(), LeftLocal::reason)
			.containsExactly(org.assertj.core.groups.Tuple.tuple("POST /orders", LeftLocal.Reason.TOO_MANY_PATHS),
					org.assertj.core.groups.Tuple.tuple("POST /orders/{id}/cancel", LeftLocal.Reason.TOO_MANY_PATHS));
		assertThat(plan.warnings()).containsExactly(
				"POST /orders (calls payment+shipping, 12 requests) left local: more than 2 sets of downstreams",
				"POST /orders/{id}/cancel (calls payment+shipping, 3 requests) left local: more than 2 sets of downstreams");
		assertThat(plan.pathOf(Route.of("POST", "/orders"))).contains("local");
	}

	@Test
	void beyondTheRouteCapTheLeastUsedRoutesStayLocalAndAreReported() {
		PathPlan plan = new PathPlanner(16, 3).plan(this.shop);
		// Busiest calling routes: /catalogue 30, GET /orders/{id} 20, POST /orders 12.
		assertThat(plan.paths()).extracting(ProposedPath::name)
			.containsExactly("carts_user", "catalogue", "payment_shipping");
		assertThat(plan.paths().get(0).routes()).hasSize(1);
		assertThat(plan.warnings()).containsExactly(
				"GET /orders (calls carts+user, 8 requests) left local: more than 3 routes call downstreams",
				"POST /orders/{id}/cancel (calls payment+shipping, 3 requests) left local: more than 3 routes call downstreams");
	}

	@Test
	void withNoPathsAllowedEveryRouteIsLocal() {
		PathPlan plan = new PathPlanner(0, 256).plan(this.shop);
		assertThat(plan.paths()).isEmpty();
		assertThat(plan.leftLocal()).hasSize(5);
	}

	@Test
	void aRouteSeenTwiceCountsAsOne() {
		PathPlan plan = PathPlanner.withDefaults()
			.plan(List.of(route("GET", "/a", 2, "x"), route("GET", "/a", 3, "y"), route("GET", "/b", 1, "x", "y")));
		assertThat(plan.paths()).singleElement().satisfies((path) -> {
			assertThat(path.name()).isEqualTo("x_y");
			assertThat(path.routes()).extracting(LearnedRoute::requests).containsExactly(5L, 1L);
			assertThat(path.routes().get(0).calls()).containsEntry("x", 2L).containsEntry("y", 3L);
		});
	}

	@Test
	void setsWhoseNamesClashAreNumberedBusiestFirst() {
		PathPlan plan = PathPlanner.withDefaults()
			.plan(List.of(route("GET", "/a", 2, "orders.svc"), route("GET", "/b", 5, "orders:svc")));
		assertThat(plan.paths()).extracting(ProposedPath::name, ProposedPath::downstreamSet)
			.containsExactly(org.assertj.core.groups.Tuple.tuple("orders-svc", "orders:svc"),
					org.assertj.core.groups.Tuple.tuple("orders-svc-2", "orders.svc"));
	}

	@Test
	void aDownstreamNamedLocalDoesNotTakeTheLocalName() {
		PathPlan plan = PathPlanner.withDefaults().plan(List.of(route("GET", "/a", 1, "local")));
		assertThat(plan.paths()).extracting(ProposedPath::name).containsExactly("local-2");
	}

}
