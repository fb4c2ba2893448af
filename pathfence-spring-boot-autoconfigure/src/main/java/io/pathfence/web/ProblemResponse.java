package io.pathfence.web;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import io.pathfence.core.RejectionReason;

/**
 * The answer to a request its path cannot take: {@code 503} with {@code Retry-After} and
 * an RFC 9457 problem body that names the path and the reason, written without a JSON
 * library so it costs microseconds.
 */
final class ProblemResponse {

	static final String PATH_HEADER = "X-PathFence-Path";

	/**
	 * The most of the request URI the body repeats: a body that outgrew the response
	 * buffer would be sent while it is written, on the path's expiry thread, and a client
	 * that does not read would hold up the path's later timeouts.
	 */
	static final int MAX_INSTANCE_CHARS = 256;

	private ProblemResponse() {
	}

	static void write(HttpServletRequest request, HttpServletResponse response, String path, RejectionReason reason,
			Duration retryAfter) throws IOException {
		write(request, response, path, reason, retryAfter, true);
	}

	/**
	 * @param flush whether to send the answer now; off the container's threads it is left
	 * in the response buffer for the container to send when the request completes, so a
	 * client that does not read cannot block the caller
	 */
	static void write(HttpServletRequest request, HttpServletResponse response, String path, RejectionReason reason,
			Duration retryAfter, boolean flush) throws IOException {
		request.setAttribute(PathFenceFilter.REJECTED_ATTRIBUTE, path);
		if (response.isCommitted()) {
			return;
		}
		response.resetBuffer();
		response.setStatus(HttpServletResponse.SC_SERVICE_UNAVAILABLE);
		response.setHeader("Retry-After", Long.toString(Math.max(0, (retryAfter.toMillis() + 999) / 1000)));
		response.setHeader(PATH_HEADER, path);
		response.setContentType("application/problem+json");
		response.setCharacterEncoding(StandardCharsets.UTF_8.name());
		String detail = (reason == RejectionReason.QUEUE_FULL) ? "The queue of path '" + path + "' is full."
				: "The request waited longer than the queue timeout of path '" + path + "'.";
		String body = "{\"type\":\"about:blank\",\"title\":\"Service Unavailable\",\"status\":503,\"detail\":"
				+ quote(detail) + ",\"instance\":" + quote(instance(request.getRequestURI())) + ",\"path\":"
				+ quote(path) + ",\"reason\":" + quote(reason.tag()) + "}";
		byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
		response.setContentLength(bytes.length);
		response.getOutputStream().write(bytes);
		if (flush) {
			response.flushBuffer();
		}
	}

	private static String instance(String uri) {
		return (uri.length() <= MAX_INSTANCE_CHARS) ? uri : uri.substring(0, MAX_INSTANCE_CHARS) + "...";
	}

	private static String quote(String text) {
		StringBuilder quoted = new StringBuilder(text.length() + 2).append('"');
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			switch (c) {
				case '"' -> quoted.append("\\\"");
				case '\\' -> quoted.append("\\\\");
				default -> {
					if (c < 0x20) {
						quoted.append(String.format("\\u%04x", (int) c));
					}
					else {
						quoted.append(c);
					}
				}
			}
		}
		return quoted.append('"').toString();
	}

}
