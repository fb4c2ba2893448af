package io.pathfence.cli.traces;

import tools.jackson.databind.JsonNode;

/**
 * The trace file formats the command reads, each told apart by its top level.
 */
public enum TraceFormat {

	/**
	 * Zipkin v2: a list of spans, or a list of traces (lists of spans) as its API
	 * returns.
	 */
	ZIPKIN("a Zipkin v2 list of spans"),

	/**
	 * Jaeger's query API (and UI download): {@code {"data": [{"traceID", "spans",
	 * "processes"}]}}.
	 */
	JAEGER("a Jaeger {\"data\": [...]} object"),

	/**
	 * OTLP JSON: {@code {"resourceSpans": [...]}}, one per line as the collector's file
	 * exporter writes.
	 */
	OTLP("an OTLP {\"resourceSpans\": [...]} object");

	private final String shape;

	TraceFormat(String shape) {
		this.shape = shape;
	}

	/** What a document of the format looks like, for messages. */
	String shape() {
		return this.shape;
	}

	/** The format a document is in, or null when it is none of them. */
	static TraceFormat of(JsonNode document) {
		if (document.isArray()) {
			return ZIPKIN;
		}
		if (document.isObject() && document.has("data")) {
			return JAEGER;
		}
		if (document.isObject() && document.has("resourceSpans")) {
			return OTLP;
		}
		return null;
	}

}
