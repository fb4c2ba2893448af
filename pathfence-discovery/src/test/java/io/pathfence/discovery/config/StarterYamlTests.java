package io.pathfence.discovery.config;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.pathfence.discovery.PathPlanner;

import static io.pathfence.discovery.Learned.route;
import static org.assertj.core.api.Assertions.assertThat;

class StarterYamlTests {

	@Test
	void writesEachPathsRoutesAndMethodsInAnOrderThatKeepsEachRouteOnItsPath() {
		GeneratedConfig yaml = StarterYaml.write(WriterScenario.PLAN, 10, List.of("Learned from traces of orders."));
		// reports must come before carts_user, whose /orders/{id} also matches
		// /orders/summary.
		assertThat(yaml.text()).isEqualTo("""
				# Learned from traces of orders.
				# Every path starts with 10 permits (40 in all): they must fit in pathfence.pool-size.
				# Size them from the service's load, or let pathfence.tuning.enabled=true size them.
				pathfence:
				  paths:
				    carts:
				      # calls carts; 2 routes, 11 requests
				      permits: 10
				      routes:
				        - "/carts/{id}"
				        - "/carts/{id}/items/{item}"
				      methods:
				        - DELETE
				        - PUT
				    payment_shipping:
				      # calls payment+shipping; 2 routes, 15 requests
				      permits: 10
				      routes:
				        - "/orders"
				        - "/orders/{id}/cancel"
				      methods:
				        - POST
				    reports:
				      # calls reports; 1 route, 4 requests
				      permits: 10
				      routes:
				        - "/orders/summary"
				      methods:
				        - GET
				    carts_user:
				      # calls carts+user; 1 route, 20 requests
				      permits: 10
				      routes:
				        - "/orders/{id}"
				      methods:
				        - GET
				# Local (they call no downstream): GET /health, GET /orders/count
				""");
		assertThat(yaml.warnings()).containsExactly(
				"path bank is left out: none of its routes can be configured (ProcessRefund)",
				"local route GET /orders/count would be fenced in path carts_user by the starter's routes"
						+ " (GET /orders/count matches it)");
	}

	@Test
	void aRouteForAnyMethodLeavesItsPathWithoutMethods() {
		GeneratedConfig yaml = StarterYaml.write(
				PathPlanner.withDefaults().plan(List.of(route("", "/a/**", 1, "x"), route("GET", "/b", 1, "x"))), 4,
				List.of());
		assertThat(yaml.text()).isEqualTo("""
				# Every path starts with 4 permits (4 in all): they must fit in pathfence.pool-size.
				# Size them from the service's load, or let pathfence.tuning.enabled=true size them.
				pathfence:
				  paths:
				    x:
				      # calls x; 2 routes, 2 requests
				      permits: 4
				      routes:
				        - "/a/**"
				        - "/b"
				""");
		assertThat(yaml.warnings()).isEmpty();
	}

	@Test
	void whatACapLeftLocalIsNamedInAComment() {
		GeneratedConfig yaml = StarterYaml.write(
				new PathPlanner(1, 16)
					.plan(List.of(route("GET", "/a", 5, "x"), route("GET", "/b", 1, "y"), route("GET", "/c", 1))),
				10, List.of());
		assertThat(yaml.text()).endsWith("""
				    x:
				      # calls x; 1 route, 5 requests
				      permits: 10
				      routes:
				        - "/a"
				      methods:
				        - GET
				# Local (they call no downstream): GET /c
				# GET /b (calls y, 1 requests) left local: more than 1 sets of downstreams
				""");
	}

	@Test
	void aPlanWithoutPathsIsAnEmptyMap() {
		GeneratedConfig yaml = StarterYaml.write(PathPlanner.withDefaults().plan(List.of(route("GET", "/", 3))), 10,
				List.of());
		assertThat(yaml.text()).isEqualTo("""
				pathfence:
				  paths: {}
				# Local (they call no downstream): GET /
				""");
	}

	@Test
	void quotesWhatYamlWouldReadOtherwise() {
		assertThat(StarterYaml.quoted("/a/{id}/\"q\"\\")).isEqualTo("\"/a/{id}/\\\"q\\\"\\\\\"");
	}

}
