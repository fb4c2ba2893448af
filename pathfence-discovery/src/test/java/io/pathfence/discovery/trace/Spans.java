package io.pathfence.discovery.trace;

import java.util.HashMap;
import java.util.Map;

/**
 * Spans for tests, times in milliseconds from 0, all of trace {@code t1}.
 */
final class Spans {

	static final long MS = 1_000_000L;

	private Spans() {
	}

	static Span server(String id, String parent, String service, long startMs, long endMs, String... tags) {
		return span(SpanKind.SERVER, id, parent, service, null, startMs, endMs, tags);
	}

	static Span client(String id, String parent, String service, String callee, long startMs, long endMs,
			String... tags) {
		return span(SpanKind.CLIENT, id, parent, service, callee, startMs, endMs, tags);
	}

	static Span internal(String id, String parent, String service, long startMs, long endMs) {
		return span(SpanKind.INTERNAL, id, parent, service, null, startMs, endMs);
	}

	static Span span(SpanKind kind, String id, String parent, String service, String callee, long startMs, long endMs,
			String... tags) {
		Map<String, String> map = new HashMap<>();
		for (int i = 0; i < tags.length; i += 2) {
			map.put(tags[i], tags[i + 1]);
		}
		return new Span("t1", id, parent, kind, id, service, callee, null, startMs * MS, (endMs - startMs) * MS, map);
	}

}
