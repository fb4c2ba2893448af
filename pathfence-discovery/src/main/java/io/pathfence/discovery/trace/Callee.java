package io.pathfence.discovery.trace;

import java.net.URI;
import java.net.URISyntaxException;

/**
 * The downstream service an outbound span calls, named as well as the trace allows:
 * <ol>
 * <li>the callee's name as the caller recorded it (Zipkin's remote endpoint,
 * {@code peer.service});</li>
 * <li>the service of a child span recorded by another service (the callee's own server
 * span);</li>
 * <li>{@code host:port}: {@code server.address}/{@code server.port},
 * {@code net.peer.name}/{@code net.peer.port}, {@code peer.hostname}/{@code peer.port},
 * then the authority of {@code http.url} or {@code url.full};</li>
 * <li>Micrometer's {@code client.name}, then the remote endpoint's address;</li>
 * <li>else {@value #UNKNOWN}.</li>
 * </ol>
 */
public final class Callee {

	/** The name of a callee nothing in the trace names. */
	public static final String UNKNOWN = "unknown";

	private Callee() {
	}

	public static String of(Span call, TraceTree tree) {
		if (call.remoteService() != null && !call.remoteService().isBlank()) {
			return call.remoteService().trim();
		}
		String peer = call.tag("peer.service");
		if (peer != null) {
			return peer.trim();
		}
		for (Span child : tree.children(call)) {
			if (!child.service().equals(call.service())) {
				return child.service();
			}
		}
		String address = hostPort(call, "server.address", "server.port");
		address = (address != null) ? address : hostPort(call, "net.peer.name", "net.peer.port");
		address = (address != null) ? address : hostPort(call, "peer.hostname", "peer.port");
		address = (address != null) ? address : authority(call.tag("http.url", "url.full"));
		address = (address != null) ? address : call.tag("client.name");
		address = (address != null) ? address : call.remoteAddress();
		return (address != null) ? address.trim() : UNKNOWN;
	}

	private static String hostPort(Span span, String hostKey, String portKey) {
		String host = span.tag(hostKey);
		if (host == null) {
			return null;
		}
		String port = span.tag(portKey);
		return (port != null) ? host.trim() + ":" + port.trim() : host.trim();
	}

	private static String authority(String url) {
		if (url == null) {
			return null;
		}
		try {
			String authority = new URI(url.trim()).getRawAuthority();
			if (authority == null) {
				return null;
			}
			// Credentials in a URL are no part of the callee's name, and must not be
			// printed.
			String hostPort = authority.substring(authority.lastIndexOf('@') + 1);
			return hostPort.isEmpty() ? null : hostPort;
		}
		catch (URISyntaxException ex) {
			return null;
		}
	}

}
