package io.pathfence.discovery.trace;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class CalleeTests {

	private static String callee(Span call, Span... children) {
		List<Span> spans = new java.util.ArrayList<>(List.of(call));
		spans.addAll(List.of(children));
		return Callee.of(call, TraceTree.of(spans).get(0));
	}

	private static Span call(String remote, String... tags) {
		return Spans.client("c", null, "orders", remote, 0, 10, tags);
	}

	@Test
	void theNameTheCallerRecordedComesFirst() {
		assertThat(callee(call("payment", "peer.service", "pay"), Spans.server("s", "c", "payment-svc", 1, 9)))
			.isEqualTo("payment");
		assertThat(callee(call(null, "peer.service", "pay"), Spans.server("s", "c", "payment-svc", 1, 9)))
			.isEqualTo("pay");
	}

	@Test
	void thenTheServiceOfTheCalleesOwnSpan() {
		assertThat(callee(call(null, "server.address", "10.0.0.7", "server.port", "8080"),
				Spans.internal("same", "c", "orders", 1, 2), Spans.server("s", "c", "payment", 1, 9)))
			.isEqualTo("payment");
	}

	@Test
	void thenTheAddressCalled() {
		assertThat(callee(call(null, "server.address", "payment", "server.port", "8080"))).isEqualTo("payment:8080");
		assertThat(callee(call(null, "net.peer.name", "payment"))).isEqualTo("payment");
		assertThat(callee(call(null, "peer.hostname", "payment", "peer.port", "80"))).isEqualTo("payment:80");
		assertThat(callee(call(null, "http.url", "http://user:secret@payment:8081/pay?x=1"))).isEqualTo("payment:8081");
		assertThat(callee(call(null, "client.name", "payment"))).isEqualTo("payment");
		Span withEndpoint = new Span("t1", "c", null, SpanKind.CLIENT, "x", "orders", null, "127.0.0.1:9000", 0, 1,
				java.util.Map.of());
		assertThat(callee(withEndpoint)).isEqualTo("127.0.0.1:9000");
	}

	@Test
	void elseUnknown() {
		assertThat(callee(call(null, "http.url", "not a url"))).isEqualTo(Callee.UNKNOWN);
	}

}
