package io.pathfence.discovery.trace;

import java.util.Map;
import java.util.Objects;

/**
 * One span of a trace, in the terms shared by Zipkin v2, Jaeger and OTLP.
 *
 * @param traceId the trace's id (lower-case hex)
 * @param spanId the span's id, unique within the trace
 * @param parentId the parent span's id, or null for a root
 * @param kind what the span stands for
 * @param name the span's (operation) name
 * @param service the service that recorded it
 * @param remoteService for a call, the callee's service name when the caller recorded it
 * (Zipkin's remote endpoint, {@code peer.service}), else null
 * @param remoteAddress for a call, the callee's {@code host:port} when recorded, else
 * null
 * @param startNanos start, in nanoseconds since the epoch
 * @param durationNanos duration in nanoseconds, 0 or more
 * @param tags tags (attributes) with their values as text
 */
public record Span(String traceId, String spanId, String parentId, SpanKind kind, String name, String service,
		String remoteService, String remoteAddress, long startNanos, long durationNanos, Map<String, String> tags) {

	public Span {
		Objects.requireNonNull(traceId, "traceId");
		Objects.requireNonNull(spanId, "spanId");
		Objects.requireNonNull(kind, "kind");
		Objects.requireNonNull(service, "service");
		name = (name != null) ? name : "";
		tags = Map.copyOf(tags);
		if (durationNanos < 0) {
			throw new IllegalArgumentException("a duration of 0 or more, not " + durationNanos);
		}
	}

	/** End, in nanoseconds since the epoch. */
	public long endNanos() {
		return this.startNanos + this.durationNanos;
	}

	/** The first of the tags that is present and not blank, or null. */
	public String tag(String... keys) {
		for (String key : keys) {
			String value = this.tags.get(key);
			if (value != null && !value.isBlank()) {
				return value;
			}
		}
		return null;
	}

}
