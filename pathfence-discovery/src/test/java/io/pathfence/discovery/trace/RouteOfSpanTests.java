package io.pathfence.discovery.trace;

import org.junit.jupiter.api.Test;

import io.pathfence.discovery.Route;

import static org.assertj.core.api.Assertions.assertThat;

class RouteOfSpanTests {

	private static Route route(String name, String... tags) {
		Span span = Spans.span(SpanKind.SERVER, "s", null, "orders", null, 0, 1, tags);
		return RouteOfSpan.of(new Span(span.traceId(), span.spanId(), null, span.kind(), name, span.service(), null,
				null, span.startNanos(), span.durationNanos(), span.tags()));
	}

	@Test
	void theRouteTagComesFirst() {
		assertThat(route("x", "http.route", "/orders/{id}", "http.method", "get", "http.path", "/orders/1"))
			.isEqualTo(Route.of("GET", "/orders/{id}"));
		assertThat(route("x", "http.route", "/orders/{id}", "http.request.method", "DELETE"))
			.isEqualTo(Route.of("DELETE", "/orders/{id}"));
	}

	@Test
	void micrometersUriAndMethodTagsAreARoute() {
		assertThat(route("http get /orders/{id}", "uri", "/orders/{id}", "method", "GET"))
			.isEqualTo(Route.of("GET", "/orders/{id}"));
		// Micrometer writes NOT_FOUND, UNKNOWN or REDIRECTION when no handler matched.
		assertThat(route("x", "uri", "NOT_FOUND", "method", "GET", "http.url", "/nothing/42"))
			.isEqualTo(Route.of("GET", "/nothing/{id}"));
	}

	@Test
	void withoutARouteThePathWithIdentifiersMadeVariables() {
		assertThat(route("x", "url.path", "/carts/9f0c2b3a/items/17", "http.request.method", "PUT"))
			.isEqualTo(Route.of("PUT", "/carts/{id}/items/{id2}"));
		assertThat(route("x", "http.target", "/a/12?x=1", "http.method", "GET")).isEqualTo(Route.of("GET", "/a/{id}"));
		assertThat(route("x", "http.url", "http://orders:8080/a/b?q", "http.method", "GET"))
			.isEqualTo(Route.of("GET", "/a/b"));
		assertThat(route("x", "url.full", "https://h", "http.method", "GET")).isEqualTo(Route.of("GET", "/"));
	}

	@Test
	void withoutTagsAnHttpLookingSpanName() {
		assertThat(route("GET /orders/{id}")).isEqualTo(Route.of("GET", "/orders/{id}"));
		assertThat(route("http post /orders")).isEqualTo(Route.of("POST", "/orders"));
	}

	@Test
	void otherwiseTheOperationName() {
		assertThat(route("ComposePost")).isEqualTo(Route.of("", "ComposePost"));
		assertThat(route("", "http.method", "_OTHER")).isEqualTo(Route.of("", "(unnamed)"));
	}

}
