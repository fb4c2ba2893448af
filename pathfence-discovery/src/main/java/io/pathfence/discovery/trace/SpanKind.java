package io.pathfence.discovery.trace;

/**
 * What a span stands for, as Zipkin, Jaeger and OpenTelemetry all name it.
 */
public enum SpanKind {

	/** The handling of an inbound request. */
	SERVER,

	/** An outbound call, waiting for its answer. */
	CLIENT,

	/** An outbound message, not waited for. */
	PRODUCER,

	/** The handling of an inbound message. */
	CONSUMER,

	/** Work inside one service. */
	INTERNAL;

	/** Whether the span is a call to another service. */
	public boolean isOutbound() {
		return this == CLIENT || this == PRODUCER;
	}

}
