package io.pathfence.cli.traces;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.pathfence.discovery.trace.Span;
import io.pathfence.discovery.trace.SpanKind;
import tools.jackson.databind.JsonNode;

/**
 * Reads Zipkin v2 spans: {@code traceId}, {@code id}, {@code parentId}, {@code kind},
 * {@code name}, {@code timestamp} and {@code duration} in microseconds,
 * {@code localEndpoint.serviceName}, {@code remoteEndpoint} and {@code tags}.
 * <p>
 * Zipkin lets a server span share its client's id ({@code "shared": true}, B3's single-id
 * style). Such a server span is given an id of its own here and becomes the client span's
 * child, and the spans its service recorded below that id become its children.
 */
final class ZipkinReader {

	/** What a shared server span's id becomes: no hex id ends like this. */
	static final String SHARED_SUFFIX = "-shared";

	private ZipkinReader() {
	}

	/** Reads one document: a list of spans, or a list of lists of spans. */
	static List<ReadSpan> read(JsonNode document, String prefix) throws MalformedTraceException {
		List<Zipkin> spans = new ArrayList<>();
		for (Element element : elements(document, prefix)) {
			spans.add(span(element.node(), element.where()));
		}
		return unshare(spans);
	}

	/** The spans of a document, flattened, each with where it is for messages. */
	static List<Element> elements(JsonNode document, String prefix) {
		List<Element> elements = new ArrayList<>();
		for (int i = 0; i < document.size(); i++) {
			JsonNode element = document.get(i);
			if (element.isArray()) {
				for (int j = 0; j < element.size(); j++) {
					elements.add(new Element(element.get(j), prefix + "[" + i + "][" + j + "]"));
				}
			}
			else {
				elements.add(new Element(element, prefix + "[" + i + "]"));
			}
		}
		return elements;
	}

	private static Zipkin span(JsonNode node, String where) throws MalformedTraceException {
		JsonSpan s = new JsonSpan(where, node);
		String traceId = s.hex("traceId", 32, true);
		String id = s.hex("id", 16, true);
		s.id(id);
		String parentId = s.hex("parentId", 16, false);
		SpanKind kind = kind(s);
		String name = s.string("name");
		long start = s.micros("timestamp");
		long duration = s.micros("duration");
		JsonNode local = s.object("localEndpoint");
		String service = endpointString(s, local, "localEndpoint", "serviceName");
		JsonNode remote = s.object("remoteEndpoint");
		String remoteService = endpointString(s, remote, "remoteEndpoint", "serviceName");
		String remoteAddress = remoteAddress(s, remote);
		Map<String, String> tags = new HashMap<>();
		JsonNode tagNode = s.object("tags");
		if (tagNode != null) {
			for (Map.Entry<String, JsonNode> tag : tagNode.properties()) {
				String value = Tags.scalar(tag.getValue());
				if (value == null) {
					throw s.error("tags." + tag.getKey(), "expected a string, found " + JsonSpan.shown(tag.getValue()));
				}
				tags.put(tag.getKey(), value);
			}
		}
		JsonNode shared = s.get("shared");
		if (shared != null && !shared.isBoolean()) {
			throw s.error("shared", "expected true or false, found " + JsonSpan.shown(shared));
		}
		Span span = new Span(traceId, id, parentId, kind, name, (service != null) ? service : "unknown", remoteService,
				remoteAddress, start, duration, tags);
		return new Zipkin(span, s.where(), shared != null && shared.booleanValue());
	}

	private static SpanKind kind(JsonSpan s) throws MalformedTraceException {
		String kind = s.string("kind");
		if (kind == null) {
			return SpanKind.INTERNAL;
		}
		return switch (kind) {
			case "CLIENT" -> SpanKind.CLIENT;
			case "SERVER" -> SpanKind.SERVER;
			case "PRODUCER" -> SpanKind.PRODUCER;
			case "CONSUMER" -> SpanKind.CONSUMER;
			default -> throw s.error("kind", "expected CLIENT, SERVER, PRODUCER or CONSUMER, found \"" + kind + "\"");
		};
	}

	private static String endpointString(JsonSpan s, JsonNode endpoint, String name, String field)
			throws MalformedTraceException {
		JsonNode value = (endpoint != null) ? endpoint.get(field) : null;
		if (value == null || value.isNull()) {
			return null;
		}
		if (!value.isString()) {
			throw s.error(name + "." + field, "expected a string, found " + JsonSpan.shown(value));
		}
		return value.stringValue().isBlank() ? null : value.stringValue();
	}

	private static String remoteAddress(JsonSpan s, JsonNode remote) throws MalformedTraceException {
		if (remote == null) {
			return null;
		}
		String ip = endpointString(s, remote, "remoteEndpoint", "ipv4");
		if (ip == null) {
			String ipv6 = endpointString(s, remote, "remoteEndpoint", "ipv6");
			ip = (ipv6 != null) ? "[" + ipv6 + "]" : null;
		}
		JsonNode port = remote.get("port");
		if (port != null && !port.isNull() && (!port.isIntegralNumber() || port.longValue() < 0)) {
			throw s.error("remoteEndpoint.port", "expected a port number, found " + JsonSpan.shown(port));
		}
		if (ip == null) {
			return null;
		}
		return (port != null && !port.isNull()) ? ip + ":" + port.longValue() : ip;
	}

	/** Gives shared server spans their own id, below their client span. */
	private static List<ReadSpan> unshare(List<Zipkin> spans) {
		Map<String, Zipkin> clients = new HashMap<>();
		for (Zipkin z : spans) {
			if (z.span.kind() == SpanKind.CLIENT) {
				clients.put(z.span.traceId() + "/" + z.span.spanId(), z);
			}
		}
		Map<String, String> sharedServices = new HashMap<>();
		List<ReadSpan> read = new ArrayList<>(spans.size());
		for (Zipkin z : spans) {
			Span s = z.span;
			String key = s.traceId() + "/" + s.spanId();
			if (z.shared && s.kind() == SpanKind.SERVER && clients.containsKey(key)) {
				sharedServices.put(key, s.service());
				s = new Span(s.traceId(), s.spanId() + SHARED_SUFFIX, s.spanId(), s.kind(), s.name(), s.service(),
						s.remoteService(), s.remoteAddress(), s.startNanos(), s.durationNanos(), s.tags());
			}
			read.add(new ReadSpan(s, z.where, "id", "parentId"));
		}
		if (sharedServices.isEmpty()) {
			return read;
		}
		List<ReadSpan> linked = new ArrayList<>(read.size());
		for (ReadSpan r : read) {
			Span s = r.span();
			String parentKey = s.traceId() + "/" + s.parentId();
			String sharedService = (s.parentId() != null) ? sharedServices.get(parentKey) : null;
			if (sharedService != null && sharedService.equals(s.service()) && !s.spanId().endsWith(SHARED_SUFFIX)) {
				s = new Span(s.traceId(), s.spanId(), s.parentId() + SHARED_SUFFIX, s.kind(), s.name(), s.service(),
						s.remoteService(), s.remoteAddress(), s.startNanos(), s.durationNanos(), s.tags());
			}
			linked.add(new ReadSpan(s, r.where(), r.idField(), r.parentField()));
		}
		return linked;
	}

	private record Zipkin(Span span, String where, boolean shared) {
	}

	/** A span's JSON and where it is in its document. */
	record Element(JsonNode node, String where) {
	}

}
