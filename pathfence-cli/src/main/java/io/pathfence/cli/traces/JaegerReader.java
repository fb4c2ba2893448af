package io.pathfence.cli.traces;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.pathfence.discovery.trace.Span;
import io.pathfence.discovery.trace.SpanKind;
import tools.jackson.databind.JsonNode;

/**
 * Reads Jaeger's JSON (the query API's and the UI's download): {@code {"data":
 * [{"traceID", "spans": [...], "processes": {"p1": {"serviceName"}}}]}}. A span's parent
 * is its first {@code CHILD_OF} reference, else its first {@code FOLLOWS_FROM}, else an
 * older {@code parentSpanID}; its kind is its {@code span.kind} tag; times are in
 * microseconds.
 */
final class JaegerReader {

	private JaegerReader() {
	}

	static List<ReadSpan> read(JsonNode document, String prefix) throws MalformedTraceException {
		JsonNode data = document.get("data");
		if (!data.isArray()) {
			throw new MalformedTraceException(prefix + "data: expected an array, found " + JsonSpan.shown(data));
		}
		List<ReadSpan> spans = new ArrayList<>();
		for (int i = 0; i < data.size(); i++) {
			JsonSpan trace = new JsonSpan(prefix + "data[" + i + "]", data.get(i));
			JsonNode processes = trace.object("processes");
			JsonNode list = trace.array("spans", true);
			for (int j = 0; j < list.size(); j++) {
				spans.add(span(new JsonSpan(trace.where + ".spans[" + j + "]", list.get(j)), processes));
			}
		}
		return spans;
	}

	private static ReadSpan span(JsonSpan s, JsonNode processes) throws MalformedTraceException {
		String traceId = s.hex("traceID", 32, true);
		String id = s.hex("spanID", 16, true);
		s.id(id);
		String parent = parent(s);
		long start = s.micros("startTime");
		long duration = s.micros("duration");
		Map<String, String> tags = new HashMap<>();
		JsonNode list = s.array("tags", false);
		if (list != null) {
			for (int k = 0; k < list.size(); k++) {
				JsonNode tag = list.get(k);
				String field = "tags[" + k + "]";
				JsonNode key = tag.get("key");
				if (key == null || !key.isString()) {
					throw s.error(field + ".key", "expected a string, found " + shown(key));
				}
				JsonNode value = tag.get("value");
				String text = (value != null) ? Tags.scalar(value) : null;
				if (text == null) {
					throw s.error(field + ".value", "expected a string, number or boolean, found " + shown(value));
				}
				tags.put(key.stringValue(), text);
			}
		}
		return new ReadSpan(new Span(traceId, id, parent, kind(tags.get("span.kind")), s.string("operationName"),
				service(s, processes), null, null, start, duration, tags), s.where(), "spanID", "references");
	}

	private static String parent(JsonSpan s) throws MalformedTraceException {
		JsonNode references = s.array("references", false);
		String followsFrom = null;
		if (references != null) {
			for (int k = 0; k < references.size(); k++) {
				JsonSpan ref = new JsonSpan(s.where() + ".references[" + k + "]", references.get(k));
				String type = ref.requiredString("refType");
				String spanId = ref.hex("spanID", 16, true);
				if (type.equals("CHILD_OF")) {
					return spanId;
				}
				if (type.equals("FOLLOWS_FROM")) {
					followsFrom = (followsFrom != null) ? followsFrom : spanId;
				}
				else {
					throw ref.error("refType", "expected CHILD_OF or FOLLOWS_FROM, found \"" + type + "\"");
				}
			}
		}
		if (followsFrom != null) {
			return followsFrom;
		}
		String older = s.hex("parentSpanID", 16, false);
		// Some Jaeger versions write an all-zero parent for a root.
		return (older != null && !older.matches("0+")) ? older : null;
	}

	private static String service(JsonSpan s, JsonNode processes) throws MalformedTraceException {
		JsonNode process = s.object("process");
		if (process == null) {
			String id = s.requiredString("processID");
			process = (processes != null) ? processes.get(id) : null;
			if (process == null || !process.isObject()) {
				throw s.error("processID", "no process \"" + id + "\" in the trace's processes");
			}
		}
		JsonNode name = process.get("serviceName");
		if (name == null || !name.isString() || name.stringValue().isBlank()) {
			throw s.error((s.get("process") != null) ? "process.serviceName" : "processID",
					"the process has no serviceName");
		}
		return name.stringValue();
	}

	private static SpanKind kind(String tag) {
		if (tag == null) {
			return SpanKind.INTERNAL;
		}
		return switch (tag.toLowerCase(Locale.ROOT)) {
			case "server" -> SpanKind.SERVER;
			case "client" -> SpanKind.CLIENT;
			case "producer" -> SpanKind.PRODUCER;
			case "consumer" -> SpanKind.CONSUMER;
			default -> SpanKind.INTERNAL;
		};
	}

	private static String shown(JsonNode value) {
		return (value != null) ? JsonSpan.shown(value) : "nothing";
	}

}
