package io.pathfence.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.pathfence.cli.SocialNetwork.GenSpan;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Writes generated spans in each format as its own tools do, each recording what its
 * instrumentations typically record: Zipkin with the route and the callee's name, Jaeger
 * with URLs only (no route, no callee name: the readers must derive both), OTLP with the
 * route and the server address, kinds as numbers and as names.
 */
final class TraceWriters {

	private static final ObjectMapper JSON = JsonMapper.builder().build();

	private TraceWriters() {
	}

	static String zipkin(List<GenSpan> spans) {
		ArrayNode list = JSON.createArrayNode();
		for (GenSpan g : spans) {
			ObjectNode s = list.addObject();
			s.put("traceId", g.traceId());
			s.put("id", g.spanId());
			if (g.parentId() != null) {
				s.put("parentId", g.parentId());
			}
			if (!g.kind().equals("INTERNAL")) {
				s.put("kind", g.kind());
			}
			s.put("name", g.name());
			s.put("timestamp", g.startMicros());
			s.put("duration", g.durationMicros());
			s.putObject("localEndpoint").put("serviceName", g.service()).put("ipv4", "10.0.0.1");
			ObjectNode tags = s.putObject("tags");
			if (g.kind().equals("SERVER")) {
				tags.put("http.method", g.method());
				tags.put("http.route", g.route());
				tags.put("http.path", g.path());
			}
			else if (g.kind().equals("CLIENT")) {
				s.putObject("remoteEndpoint").put("serviceName", g.callee()).put("port", 8080);
				tags.put("http.method", g.method());
				tags.put("http.path", g.path());
			}
		}
		return JSON.writeValueAsString(list);
	}

	static String jaeger(List<GenSpan> spans) {
		Map<String, List<GenSpan>> byTrace = new LinkedHashMap<>();
		spans.forEach((g) -> byTrace.computeIfAbsent(g.traceId(), (t) -> new ArrayList<>()).add(g));
		ObjectNode root = JSON.createObjectNode();
		ArrayNode data = root.putArray("data");
		for (Map.Entry<String, List<GenSpan>> trace : byTrace.entrySet()) {
			ObjectNode t = data.addObject();
			t.put("traceID", trace.getKey());
			ArrayNode list = t.putArray("spans");
			Map<String, String> processIds = new LinkedHashMap<>();
			for (GenSpan g : trace.getValue()) {
				String process = processIds.computeIfAbsent(g.service(), (s) -> "p" + (processIds.size() + 1));
				ObjectNode s = list.addObject();
				s.put("traceID", g.traceId());
				s.put("spanID", g.spanId());
				s.put("operationName", g.name());
				ArrayNode refs = s.putArray("references");
				if (g.parentId() != null) {
					refs.addObject().put("refType", "CHILD_OF").put("traceID", g.traceId()).put("spanID", g.parentId());
				}
				s.put("startTime", g.startMicros());
				s.put("duration", g.durationMicros());
				ArrayNode tags = s.putArray("tags");
				if (!g.kind().equals("INTERNAL")) {
					tag(tags, "span.kind", g.kind().toLowerCase(java.util.Locale.ROOT));
					tag(tags, "http.method", g.method());
					String host = g.kind().equals("SERVER") ? g.service() : g.callee();
					tag(tags, "http.url", "http://" + host + ":8080" + g.path());
				}
				tags.addObject().put("key", "internal.span.format").put("type", "string").put("value", "proto");
				s.putArray("logs");
				s.put("processID", process);
				s.putNull("warnings");
			}
			ObjectNode processes = t.putObject("processes");
			processIds.forEach((service, id) -> processes.putObject(id).put("serviceName", service).putArray("tags"));
			t.putNull("warnings");
		}
		root.put("total", 0).put("limit", 0).put("offset", 0).putNull("errors");
		return JSON.writeValueAsString(root);
	}

	private static void tag(ArrayNode tags, String key, String value) {
		tags.addObject().put("key", key).put("type", "string").put("value", value);
	}

	/**
	 * One OTLP document per line, as the collector's file exporter writes, one per trace.
	 */
	static String otlp(List<GenSpan> spans) {
		Map<String, List<GenSpan>> byTrace = new LinkedHashMap<>();
		spans.forEach((g) -> byTrace.computeIfAbsent(g.traceId(), (t) -> new ArrayList<>()).add(g));
		StringBuilder lines = new StringBuilder();
		for (List<GenSpan> trace : byTrace.values()) {
			Map<String, List<GenSpan>> byService = new LinkedHashMap<>();
			trace.forEach((g) -> byService.computeIfAbsent(g.service(), (s) -> new ArrayList<>()).add(g));
			ObjectNode root = JSON.createObjectNode();
			ArrayNode resources = root.putArray("resourceSpans");
			for (Map.Entry<String, List<GenSpan>> service : byService.entrySet()) {
				ObjectNode resource = resources.addObject();
				ArrayNode attributes = resource.putObject("resource").putArray("attributes");
				attribute(attributes, "service.name", service.getKey());
				attribute(attributes, "telemetry.sdk.language", "java");
				ObjectNode scope = resource.putArray("scopeSpans").addObject();
				scope.putObject("scope").put("name", "io.opentelemetry.tomcat-10.0");
				ArrayNode list = scope.putArray("spans");
				for (GenSpan g : service.getValue()) {
					ObjectNode s = list.addObject();
					s.put("traceId", g.traceId().toUpperCase(java.util.Locale.ROOT));
					s.put("spanId", g.spanId());
					s.put("parentSpanId", (g.parentId() != null) ? g.parentId() : "");
					s.put("name", g.name());
					switch (g.kind()) {
						case "SERVER" -> s.put("kind", "SPAN_KIND_SERVER");
						case "CLIENT" -> s.put("kind", 3);
						default -> s.put("kind", 1);
					}
					s.put("startTimeUnixNano", Long.toString(g.startMicros() * 1000));
					s.put("endTimeUnixNano", Long.toString((g.startMicros() + g.durationMicros()) * 1000));
					ArrayNode attrs = s.putArray("attributes");
					if (g.kind().equals("SERVER")) {
						attribute(attrs, "http.request.method", g.method());
						attribute(attrs, "http.route", g.route());
						attribute(attrs, "url.path", g.path());
					}
					else if (g.kind().equals("CLIENT")) {
						attribute(attrs, "http.request.method", g.method());
						attribute(attrs, "server.address", g.callee());
						attrs.addObject().put("key", "server.port").putObject("value").put("intValue", "8080");
						attribute(attrs, "url.full", "http://" + g.callee() + ":8080" + g.path());
					}
					s.putObject("status");
				}
			}
			lines.append(JSON.writeValueAsString(root)).append('\n');
		}
		return lines.toString();
	}

	private static void attribute(ArrayNode attributes, String key, String value) {
		attributes.addObject().put("key", key).putObject("value").put("stringValue", value);
	}

}
