package io.pathfence.discovery.config;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.pathfence.discovery.PathPlanner;

import static io.pathfence.discovery.Learned.route;
import static org.assertj.core.api.Assertions.assertThat;

class FilterJsonTests {

	@Test
	void writesOneEntryPerPathWithTheSimplestMatchAndTheCommonMethod() {
		GeneratedConfig json = FilterJson.write(WriterScenario.PLAN, 10);
		assertThat(json.text()).isEqualTo(
				"""
						{
						  "paths": [
						    {"name": "carts", "match": {"regex": "(?:/carts/[^/]+)|(?:/carts/[^/]+/items/[^/]+)"}, "max_concurrency": 10},
						    {"name": "payment_shipping", "match": {"regex": "(?:/orders)|(?:/orders/[^/]+/cancel)", "method": "POST"}, "max_concurrency": 10},
						    {"name": "reports", "match": {"exact": "/orders/summary", "method": "GET"}, "max_concurrency": 10},
						    {"name": "carts_user", "match": {"prefix": "/orders/", "method": "GET"}, "max_concurrency": 10}
						  ]
						}
						""");
		assertThat(json.warnings()).containsExactly(
				"path bank is left out: none of its routes can be configured (ProcessRefund)",
				"local route GET /orders/count would be fenced in path carts_user by the filter's matches"
						+ " (GET /orders/count matches it)");
	}

	@Test
	void aPrefixWiderThanItsPatternComesAfterThePathsWhoseRequestsItWouldTake() {
		// /a/{id} becomes the prefix /a/, which also takes /a/1/b: y's entry goes first.
		GeneratedConfig json = FilterJson.write(PathPlanner.withDefaults()
			.plan(List.of(route("GET", "/a/{id}", 2, "x"), route("GET", "/a/{id}/b", 1, "y"))), 1);
		assertThat(json.text()).isEqualTo("""
				{
				  "paths": [
				    {"name": "y", "match": {"regex": "/a/[^/]+/b", "method": "GET"}, "max_concurrency": 1},
				    {"name": "x", "match": {"prefix": "/a/", "method": "GET"}, "max_concurrency": 1}
				  ]
				}
				""");
		assertThat(json.warnings()).isEmpty();
	}

	@Test
	void routesThatCatchEachOthersRequestsAreReported() {
		// Each path matches requests of the other: no order serves both, x comes first
		// by name, and y's routes are named.
		GeneratedConfig json = FilterJson.write(PathPlanner.withDefaults()
			.plan(List.of(route("GET", "/a/**", 2, "x"), route("GET", "/a/{id}", 1, "y"),
					route("GET", "/b/{id}", 2, "x"), route("GET", "/b/**", 1, "y"))),
				1);
		assertThat(json.warnings()).containsExactly(
				"route GET /a/{id} of path y would go to path x by the filter's matches (GET /a/0 matches both)",
				"route GET /b/** of path y would go to path x by the filter's matches (GET /b/0 matches both)");
	}

	@Test
	void aPlanWithoutPathsHasAnEmptyList() {
		assertThat(FilterJson.write(PathPlanner.withDefaults().plan(List.of(route("GET", "/", 1))), 1).text())
			.isEqualTo("{\"paths\": []}\n");
	}

	@Test
	void escapesJson() {
		assertThat(FilterJson.string("a\\.b\"\n")).isEqualTo("\"a\\\\.b\\\"\\n\"");
	}

}
