package io.pathfence.demo.run;

import java.util.Locale;

/**
 * Zipkin v2 JSON spans as Brave reports a demo service's: a server span per request, its
 * route and method in Micrometer's tags, and a client span per call naming the callee.
 */
final class ZipkinSpans {

	private ZipkinSpans() {
	}

	static String batch(String... spans) {
		return "[" + String.join(",", spans) + "]";
	}

	static String server(String trace, String id, String parent, String service, String method, String route) {
		return span(trace, id, parent, "SERVER", service, null,
				"\"tags\": {\"method\": \"" + method + "\", \"uri\": \"" + route + "\"}");
	}

	static String client(String trace, String id, String parent, String service, String callee) {
		return span(trace, id, parent, "CLIENT", service, callee, "\"tags\": {}");
	}

	private static String span(String trace, String id, String parent, String kind, String service, String callee,
			String tags) {
		return "{\"traceId\": \"" + hex(trace, 32) + "\", \"id\": \"" + hex(id, 16) + "\""
				+ ((parent != null) ? ", \"parentId\": \"" + hex(parent, 16) + "\"" : "") + ", \"kind\": \"" + kind
				+ "\", \"name\": \"http " + kind.toLowerCase(Locale.ROOT) + "\""
				+ ", \"timestamp\": 1700000000000000, \"duration\": 1200" + ", \"localEndpoint\": {\"serviceName\": \""
				+ service + "\", \"ipv4\": \"127.0.0.1\"}"
				+ ((callee != null) ? ", \"remoteEndpoint\": {\"serviceName\": \"" + callee + "\"}" : "") + ", " + tags
				+ "}";
	}

	/** The id padded to its full length, as Zipkin writes ids. */
	static String hex(String id, int digits) {
		return "0".repeat(digits - id.length()) + id;
	}

}
