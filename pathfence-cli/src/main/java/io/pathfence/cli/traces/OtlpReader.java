package io.pathfence.cli.traces;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.pathfence.discovery.trace.Span;
import io.pathfence.discovery.trace.SpanKind;
import tools.jackson.databind.JsonNode;

/**
 * Reads OTLP JSON ({@code ExportTraceServiceRequest}, as the collector's file exporter
 * and the OTLP/HTTP JSON encoding write it): {@code resourceSpans[].scopeSpans[].spans[]}
 * with hex ids, {@code kind} as a number or as {@code SPAN_KIND_SERVER},
 * {@code startTimeUnixNano}/{@code endTimeUnixNano} as strings of digits, and typed
 * attributes; the service is the resource's {@code service.name}.
 */
final class OtlpReader {

	private static final String[] KINDS = { "SPAN_KIND_UNSPECIFIED", "SPAN_KIND_INTERNAL", "SPAN_KIND_SERVER",
			"SPAN_KIND_CLIENT", "SPAN_KIND_PRODUCER", "SPAN_KIND_CONSUMER" };

	/** OpenTelemetry's name for a service that does not say its own. */
	static final String UNKNOWN_SERVICE = "unknown_service";

	private OtlpReader() {
	}

	static List<ReadSpan> read(JsonNode document, String prefix) throws MalformedTraceException {
		JsonNode resources = document.get("resourceSpans");
		if (!resources.isArray()) {
			throw new MalformedTraceException(
					prefix + "resourceSpans: expected an array, found " + JsonSpan.shown(resources));
		}
		List<ReadSpan> spans = new ArrayList<>();
		for (int i = 0; i < resources.size(); i++) {
			JsonSpan resourceSpans = new JsonSpan(prefix + "resourceSpans[" + i + "]", resources.get(i));
			String service = service(resourceSpans);
			String scopeField = (resourceSpans.get("scopeSpans") != null) ? "scopeSpans"
					: "instrumentationLibrarySpans";
			JsonNode scopes = resourceSpans.array(scopeField, false);
			for (int j = 0; scopes != null && j < scopes.size(); j++) {
				JsonSpan scope = new JsonSpan(resourceSpans.where + "." + scopeField + "[" + j + "]", scopes.get(j));
				JsonNode list = scope.array("spans", false);
				for (int k = 0; list != null && k < list.size(); k++) {
					spans.add(span(new JsonSpan(scope.where + ".spans[" + k + "]", list.get(k)), service));
				}
			}
		}
		return spans;
	}

	private static String service(JsonSpan resourceSpans) throws MalformedTraceException {
		JsonNode resource = resourceSpans.object("resource");
		if (resource == null) {
			return UNKNOWN_SERVICE;
		}
		JsonSpan r = new JsonSpan(resourceSpans.where + ".resource", resource);
		String name = attributes(r).get("service.name");
		return (name != null && !name.isBlank()) ? name : UNKNOWN_SERVICE;
	}

	private static ReadSpan span(JsonSpan s, String service) throws MalformedTraceException {
		String traceId = s.hex("traceId", 32, true);
		String id = s.hex("spanId", 16, true);
		s.id(id);
		String parent = s.hex("parentSpanId", 16, false);
		SpanKind kind = kind(s);
		long start = s.int64("startTimeUnixNano", "nanoseconds since the epoch");
		long end = s.int64("endTimeUnixNano", "nanoseconds since the epoch");
		if (end < start) {
			throw s.error("endTimeUnixNano", "ends before startTimeUnixNano (" + end + " < " + start + ")");
		}
		Span span = new Span(traceId, id, parent, kind, s.string("name"), service, null, null, start, end - start,
				attributes(s));
		return new ReadSpan(span, s.where(), "spanId", "parentSpanId");
	}

	private static SpanKind kind(JsonSpan s) throws MalformedTraceException {
		JsonNode kind = s.get("kind");
		int value = -1;
		if (kind == null) {
			value = 0;
		}
		else if (kind.isIntegralNumber() && kind.canConvertToInt()) {
			value = kind.intValue();
		}
		else if (kind.isString()) {
			value = List.of(KINDS).indexOf(kind.stringValue());
		}
		return switch (value) {
			case 0, 1 -> SpanKind.INTERNAL;
			case 2 -> SpanKind.SERVER;
			case 3 -> SpanKind.CLIENT;
			case 4 -> SpanKind.PRODUCER;
			case 5 -> SpanKind.CONSUMER;
			default -> throw s.error("kind",
					"expected 0 to 5 or SPAN_KIND_INTERNAL, _SERVER, _CLIENT, _PRODUCER, _CONSUMER, found "
							+ JsonSpan.shown(kind));
		};
	}

	private static Map<String, String> attributes(JsonSpan s) throws MalformedTraceException {
		Map<String, String> attributes = new HashMap<>();
		JsonNode list = s.array("attributes", false);
		for (int k = 0; list != null && k < list.size(); k++) {
			JsonNode attribute = list.get(k);
			String field = "attributes[" + k + "]";
			JsonNode key = attribute.get("key");
			if (key == null || !key.isString()) {
				throw s.error(field + ".key", "expected a string, found " + shown(key));
			}
			JsonNode value = attribute.get("value");
			String text = (value != null) ? Tags.anyValue(value) : null;
			if (text == null) {
				throw s.error(field + ".value",
						"expected an AnyValue such as {\"stringValue\": \"x\"}, found " + shown(value));
			}
			attributes.put(key.stringValue(), text);
		}
		return attributes;
	}

	private static String shown(JsonNode value) {
		return (value != null) ? JsonSpan.shown(value) : "nothing";
	}

}
