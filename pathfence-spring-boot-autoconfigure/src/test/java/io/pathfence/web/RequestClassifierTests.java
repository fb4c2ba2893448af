package io.pathfence.web;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.mock.web.MockHttpServletRequest;

import io.pathfence.core.PathFence;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Classification by configured routes, the literal ones matched on the raw URI and the
 * rest parsed: a URI that must be decoded or stripped, or one under a context path, is
 * classified as Spring's patterns classify it.
 */
class RequestClassifierTests {

	private final RequestClassifier classifier = new RequestClassifier(List.of("/actuator/**"), routes(), List::of);

	@Test
	void literalRoutesClassifyPlainUris() {
		assertThat(classify("", "/orders/1")).isEqualTo("orders");
		assertThat(classify("", "/orders")).isEqualTo("orders");
		assertThat(classify("", "/ordersx/1")).isEqualTo(PathFence.LOCAL);
		assertThat(classify("", "/actuator/health")).isEqualTo(RequestClassifier.EXEMPT);
	}

	@Test
	void urisWithSomethingToDecodeOrStripAreClassifiedByTheirParsedPath() {
		assertThat(classify("", "/ord%65rs/1")).isEqualTo("orders");
		assertThat(classify("", "/orders;v=1/1")).isEqualTo("orders");
		assertThat(classify("", "/actuator;x=y/health")).isEqualTo(RequestClassifier.EXEMPT);
	}

	@Test
	void aContextPathIsNotPartOfTheRoute() {
		assertThat(classify("/shop", "/shop/orders/1")).isEqualTo("orders");
		assertThat(classify("/shop", "/shop/actuator/health")).isEqualTo(RequestClassifier.EXEMPT);
		assertThat(classify("/shop", "/shop/local/1")).isEqualTo(PathFence.LOCAL);
	}

	@Test
	void aRouteWithAVariableIsMatchedByItsPattern() {
		assertThat(classify("", "/catalog/7/items")).isEqualTo("catalog");
		assertThat(classify("", "/catalog/7/other")).isEqualTo(PathFence.LOCAL);
	}

	private String classify(String contextPath, String uri) {
		MockHttpServletRequest request = new MockHttpServletRequest("GET", uri);
		request.setContextPath(contextPath);
		return this.classifier.classify(request);
	}

	private static Map<String, RequestClassifier.PathRoutes> routes() {
		Map<String, RequestClassifier.PathRoutes> routes = new LinkedHashMap<>();
		routes.put("orders", new RequestClassifier.PathRoutes(List.of("/orders/**"), List.of()));
		routes.put("catalog", new RequestClassifier.PathRoutes(List.of("/catalog/{id}/items"), List.of("GET")));
		return routes;
	}

}
