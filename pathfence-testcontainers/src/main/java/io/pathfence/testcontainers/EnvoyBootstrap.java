package io.pathfence.testcontainers;

/**
 * The Envoy bootstrap a {@link PathFenceContainer} runs, and the project's demo runs as a
 * process on the host: one listener that routes everything to one target cluster,
 * optionally through the PathFence Wasm filter, and the admin interface. Like Istio's
 * inbound side, the route has no timeout and the cluster's circuit breakers are opened
 * wide, so only the filter limits requests.
 */
public final class EnvoyBootstrap {

	/** Where Envoy listens unless told otherwise: every interface, as in a container. */
	static final String ANY_ADDRESS = "0.0.0.0";

	private final int proxyPort;

	private final int adminPort;

	private final String targetHost;

	private final int targetPort;

	private final String modulePath;

	private final String vmId;

	private final String filterConfig;

	private final String listenAddress;

	/**
	 * Envoy listening on {@code proxyPort} and its admin interface on {@code adminPort},
	 * sending everything to {@code targetHost:targetPort} (a name Envoy resolves, or an
	 * address).
	 */
	public EnvoyBootstrap(int proxyPort, int adminPort, String targetHost, int targetPort) {
		this(proxyPort, adminPort, targetHost, targetPort, null, null, null, ANY_ADDRESS);
	}

	private EnvoyBootstrap(int proxyPort, int adminPort, String targetHost, int targetPort, String modulePath,
			String vmId, String filterConfig, String listenAddress) {
		this.listenAddress = listenAddress;
		this.proxyPort = proxyPort;
		this.adminPort = adminPort;
		this.targetHost = targetHost;
		this.targetPort = targetPort;
		this.modulePath = modulePath;
		this.vmId = vmId;
		this.filterConfig = filterConfig;
	}

	/**
	 * The same bootstrap with the PathFence filter (module at {@code modulePath}) before
	 * the router.
	 */
	public EnvoyBootstrap withFilter(String modulePath, String vmId, String filterConfig) {
		return new EnvoyBootstrap(this.proxyPort, this.adminPort, this.targetHost, this.targetPort, modulePath, vmId,
				filterConfig, this.listenAddress);
	}

	/**
	 * The same bootstrap with the listener and the admin interface bound to
	 * {@code address} alone: {@code 127.0.0.1} for an Envoy run on the host, which must
	 * not be reachable from elsewhere.
	 */
	public EnvoyBootstrap withListenAddress(String address) {
		return new EnvoyBootstrap(this.proxyPort, this.adminPort, this.targetHost, this.targetPort, this.modulePath,
				this.vmId, this.filterConfig, address);
	}

	/** The bootstrap as Envoy reads it ({@code -c}). */
	public String toJson() {
		StringBuilder filters = new StringBuilder();
		if (this.modulePath != null) {
			filters.append("""
					{"name": "envoy.filters.http.wasm", "typed_config": {
					  "@type": "type.googleapis.com/envoy.extensions.filters.http.wasm.v3.Wasm",
					  "config": {"name": "pathfence", "root_id": "pathfence",
					    "vm_config": {"vm_id": %s, "runtime": "envoy.wasm.runtime.v8",
					      "code": {"local": {"filename": %s}}},
					    "configuration": {"@type": "type.googleapis.com/google.protobuf.StringValue", "value": %s}}}},
					""".formatted(quote(this.vmId), quote(this.modulePath), quote(this.filterConfig)));
		}
		filters.append("""
				{"name": "envoy.filters.http.router", "typed_config": {
				  "@type": "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}""");
		return """
				{"admin": {"address": {"socket_address": {"address": %s, "port_value": %d}}},
				 "stats_config": %s,
				 "static_resources": {
				  "listeners": [{"name": "inbound",
				    "address": {"socket_address": {"address": %s, "port_value": %d}},
				    "filter_chains": [{"filters": [{"name": "envoy.filters.network.http_connection_manager",
				      "typed_config": {
				        "@type": "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
				        "stat_prefix": "inbound",
				        "route_config": {"virtual_hosts": [{"name": "target", "domains": ["*"],
				          "routes": [{"match": {"prefix": "/"}, "route": {"cluster": "target", "timeout": "0s"}}]}]},
				        "http_filters": [%s]}}]}]}],
				  "clusters": [{"name": "target", "type": "STRICT_DNS", "dns_lookup_family": "V4_ONLY",
				    "connect_timeout": "2s",
				    "circuit_breakers": {"thresholds": [
				      {"max_connections": 100000, "max_pending_requests": 100000, "max_requests": 100000}]},
				    "load_assignment": {"cluster_name": "target", "endpoints": [{"lb_endpoints": [{"endpoint": {
				      "address": {"socket_address": {"address": %s, "port_value": %d}}}}]}]}}]}}
				"""
			.formatted(quote(this.listenAddress), this.adminPort, STATS_CONFIG, quote(this.listenAddress),
					this.proxyPort, filters, quote(this.targetHost), this.targetPort);
	}

	/**
	 * The recipe that makes Envoy take the path, the reason and the verdict out of the
	 * filter's stat names as tags, so that {@code /stats/prometheus} shows
	 * {@code pathfence_path_rejected_total{path="a",reason="timeout"}} as the starter's
	 * meters do: the regexes Istio writes for
	 * {@code extraStatTags: [path, reason, verdict]}.
	 */
	static final String STATS_CONFIG = """
			{"stats_tags": [
			  {"tag_name": "path", "regex": "(path=\\\\.=(.*?);\\\\.;)"},
			  {"tag_name": "reason", "regex": "(reason=\\\\.=(.*?);\\\\.;)"},
			  {"tag_name": "verdict", "regex": "(verdict=\\\\.=(.*?);\\\\.;)"}]}""";

	/** A JSON string literal. */
	static String quote(String value) {
		StringBuilder out = new StringBuilder(value.length() + 2).append('"');
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			switch (c) {
				case '"' -> out.append("\\\"");
				case '\\' -> out.append("\\\\");
				case '\n' -> out.append("\\n");
				case '\r' -> out.append("\\r");
				case '\t' -> out.append("\\t");
				default -> {
					if (c < 0x20) {
						out.append(String.format("\\u%04x", (int) c));
					}
					else {
						out.append(c);
					}
				}
			}
		}
		return out.append('"').toString();
	}

}
