package io.pathfence.web;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import jakarta.servlet.http.MappingMatch;
import org.junit.jupiter.api.Test;

import org.springframework.mock.web.MockHttpServletMapping;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;

import io.pathfence.core.PathFence;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Classification by the handler the dispatcher will choose ({@code @FencedPath}, and
 * learned paths alike): the handler is found as Spring MVC finds it, whether the
 * request's path matches one pattern or several, whatever else the mapping asks of the
 * request, and under a servlet path prefix.
 */
class HandlerClassificationTests {

	private final RequestClassifier classifier = new RequestClassifier(Map.of(), () -> List.of(handlers()));

	@Test
	void theOneHandlerWhosePatternMatchesClaimsARequestOfItsMethod() {
		assertThat(classify("GET", "/orders/7")).isEqualTo("orders");
	}

	@Test
	void aMethodTheHandlerDoesNotNameIsNotItsRequest() {
		assertThat(classify("POST", "/orders/7")).isEqualTo(PathFence.LOCAL);
	}

	@Test
	void aHandlerThatAsksMoreThanTheMethodClaimsOnlyTheRequestsItAccepts() {
		MockHttpServletRequest json = request("GET", "/items/7");
		json.addHeader("Accept", "application/json");
		MockHttpServletRequest text = request("GET", "/items/7");
		text.addHeader("Accept", "text/plain");
		assertThat(this.classifier.classify(json)).isEqualTo("items");
		assertThat(this.classifier.classify(text)).isEqualTo(PathFence.LOCAL);
	}

	@Test
	void theMostSpecificOfSeveralMatchingPatternsWins() {
		assertThat(classify("GET", "/orders/special")).isEqualTo(PathFence.LOCAL);
	}

	@Test
	void aServletPathPrefixIsNotPartOfTheLookupPath() {
		MockHttpServletRequest request = request("GET", "/api/orders/7");
		request.setServletPath("/api");
		request
			.setHttpServletMapping(new MockHttpServletMapping("/orders/7", "/api/*", "dispatcher", MappingMatch.PATH));
		assertThat(this.classifier.classify(request)).isEqualTo("orders");
	}

	private String classify(String method, String uri) {
		return this.classifier.classify(request(method, uri));
	}

	private static MockHttpServletRequest request(String method, String uri) {
		return new MockHttpServletRequest(method, uri);
	}

	private static Map<RequestMappingInfo, String> handlers() {
		Map<RequestMappingInfo, String> handlers = new LinkedHashMap<>();
		handlers.put(RequestMappingInfo.paths("/orders/{id}").methods(RequestMethod.GET).build(), "orders");
		handlers.put(RequestMappingInfo.paths("/orders/special").methods(RequestMethod.GET).build(),
				FencedHandlers.UNFENCED);
		handlers.put(
				RequestMappingInfo.paths("/items/{id}").methods(RequestMethod.GET).produces("application/json").build(),
				"items");
		return handlers;
	}

}
