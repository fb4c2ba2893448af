package io.pathfence.testcontainers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Future;

import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.images.builder.Transferable;
import org.testcontainers.utility.DockerImageName;
import org.testcontainers.utility.MountableFile;

/**
 * Envoy with the PathFence filter and a given configuration in front of one target:
 * another container on the same network, or a port of the host.
 *
 * <pre>{@code
 * PathFenceContainer envoy = new PathFenceContainer(DEFAULT_IMAGE_NAME.withTag(DEFAULT_TAG))
 *     .withTarget(service, 8080)
 *     .withPathFenceConfig("""
 *         {"paths": [{"name": "orders", "match": {"prefix": "/orders"}, "max_concurrency": 4}]}""");
 * envoy.start();
 * // send requests to envoy.getProxyUrl(); read envoy.getPathStat("orders", "active")
 * }</pre>
 *
 * The image must hold Envoy 1.40 or later at {@value #ENVOY_BINARY} (the official
 * {@code envoyproxy/envoy} image does; a locally built one can be declared a substitute
 * with {@link DockerImageName#asCompatibleSubstituteFor(String)} or built with
 * {@link LocalEnvoyImage}). The filter module is the one shipped in this jar unless
 * {@link #withFilterModule(MountableFile)} names another. Envoy runs with two worker
 * threads by default, like an Istio sidecar, so counts shared across workers are
 * exercised. Routes have no timeout, as on Istio's inbound side: only the filter bounds
 * how long a request waits.
 * <p>
 * An invalid PathFence configuration keeps Envoy from starting: {@link #start()} fails at
 * once with the filter's own message ({@code invalid pathfence configuration: field ...})
 * in the exception.
 */
public class PathFenceContainer extends GenericContainer<PathFenceContainer> {

	/** The official Envoy image, which this container is compatible with. */
	public static final DockerImageName DEFAULT_IMAGE_NAME = DockerImageName.parse("envoyproxy/envoy");

	/**
	 * The tag of the official image with the Envoy this filter is built and tested
	 * against (1.40.0).
	 */
	public static final String DEFAULT_TAG = "v1.40.0";

	/** Port of the fenced listener inside the container. */
	public static final int PROXY_PORT = 10000;

	/**
	 * Port of Envoy's admin interface ({@code /ready}, {@code /stats}) inside the
	 * container.
	 */
	public static final int ADMIN_PORT = 9901;

	/** Where the image must hold the Envoy binary. */
	public static final String ENVOY_BINARY = "/usr/local/bin/envoy";

	/**
	 * The host name under which a container reaches the Docker host
	 * ({@link #withHostTarget(int)}).
	 */
	public static final String HOST_GATEWAY_NAME = "host.docker.internal";

	static final String BOOTSTRAP_PATH = "/etc/pathfence/envoy.json";

	static final String MODULE_PATH = "/etc/pathfence/pathfence.wasm";

	static final String BUNDLED_MODULE = "io/pathfence/testcontainers/pathfence_envoy_filter.wasm";

	private static final HttpClient ADMIN_CLIENT = HttpClient.newBuilder()
		.connectTimeout(Duration.ofSeconds(2))
		.build();

	private String pathFenceConfig;

	private boolean filterEnabled = true;

	private MountableFile filterModule;

	private String targetHost;

	private int targetPort;

	private int concurrency = 2;

	private String vmId = "pathfence";

	public PathFenceContainer(String dockerImageName) {
		this(DockerImageName.parse(dockerImageName));
	}

	public PathFenceContainer(DockerImageName dockerImageName) {
		super(dockerImageName);
		dockerImageName.assertCompatibleWith(DEFAULT_IMAGE_NAME);
		init();
	}

	/**
	 * A container of an image that is being built, such as an
	 * {@link org.testcontainers.images.builder.ImageFromDockerfile} or a
	 * {@link LocalEnvoyImage}.
	 */
	public PathFenceContainer(Future<String> image) {
		super(image);
		init();
	}

	private void init() {
		withExposedPorts(PROXY_PORT, ADMIN_PORT);
		waitingFor(new EnvoyReadyWaitStrategy(ADMIN_PORT).withStartupTimeout(Duration.ofSeconds(60)));
	}

	/**
	 * The filter's JSON configuration, as documented in the filter's README (the value
	 * Istio's {@code pluginConfig} carries).
	 */
	public PathFenceContainer withPathFenceConfig(String json) {
		this.pathFenceConfig = Objects.requireNonNull(json, "json");
		this.filterEnabled = true;
		return self();
	}

	/** Runs the same Envoy without the filter: the control of an isolation test. */
	public PathFenceContainer withoutFilter() {
		this.filterEnabled = false;
		return self();
	}

	/** A filter module other than the one shipped in this jar. */
	public PathFenceContainer withFilterModule(MountableFile module) {
		this.filterModule = Objects.requireNonNull(module, "module");
		return self();
	}

	/**
	 * Sends every request to {@code port} of {@code target}, a container on the same
	 * network (this container joins the target's network when it has none of its own)
	 * that starts first.
	 */
	public PathFenceContainer withTarget(GenericContainer<?> target, int port) {
		Network network = target.getNetwork();
		if (network == null) {
			throw new IllegalArgumentException(
					"the target container has no network: give it one with withNetwork(...) so Envoy can reach it");
		}
		if (getNetwork() == null) {
			withNetwork(network);
		}
		dependsOn(target);
		return withTarget(target.getNetworkAliases().get(0), port);
	}

	/** Sends every request to {@code host:port}, resolved by DNS inside the container. */
	public PathFenceContainer withTarget(String host, int port) {
		if (port < 1 || port > 65535) {
			throw new IllegalArgumentException("target port " + port + " is not a TCP port");
		}
		this.targetHost = Objects.requireNonNull(host, "host");
		this.targetPort = port;
		return self();
	}

	/**
	 * Sends every request to {@code port} of the Docker host, through Docker's host
	 * gateway: the service must listen on an address the containers can reach (all
	 * interfaces, or the bridge's), not only on loopback.
	 */
	public PathFenceContainer withHostTarget(int port) {
		withExtraHost(HOST_GATEWAY_NAME, "host-gateway");
		return withTarget(HOST_GATEWAY_NAME, port);
	}

	/**
	 * Envoy's worker threads ({@code --concurrency}); 2 by default, like Istio's sidecar.
	 */
	public PathFenceContainer withConcurrency(int workers) {
		if (workers < 1) {
			throw new IllegalArgumentException("concurrency must be at least 1, was " + workers);
		}
		this.concurrency = workers;
		return self();
	}

	/** The filter's {@code vm_id}, which scopes its shared counts. */
	public PathFenceContainer withVmId(String vmId) {
		this.vmId = Objects.requireNonNull(vmId, "vmId");
		return self();
	}

	@Override
	protected void configure() {
		if (this.targetHost == null) {
			throw new IllegalStateException("no target: call withTarget(...) or withHostTarget(...) before start()");
		}
		if (this.filterEnabled && this.pathFenceConfig == null) {
			throw new IllegalStateException(
					"no PathFence configuration: call withPathFenceConfig(...), or withoutFilter() for a control run");
		}
		EnvoyBootstrap bootstrap = new EnvoyBootstrap(PROXY_PORT, ADMIN_PORT, this.targetHost, this.targetPort);
		if (this.filterEnabled) {
			bootstrap = bootstrap.withFilter(MODULE_PATH, this.vmId, this.pathFenceConfig);
			withCopyToContainer((this.filterModule != null) ? this.filterModule
					: MountableFile.forClasspathResource(BUNDLED_MODULE), MODULE_PATH);
		}
		withCopyToContainer(Transferable.of(bootstrap.toJson()), BOOTSTRAP_PATH);
		setCommand(ENVOY_BINARY, "-c", BOOTSTRAP_PATH, "--concurrency", Integer.toString(this.concurrency),
				"--disable-hot-restart", "-l", "info");
	}

	/** The host port mapped to the fenced listener. */
	public int getProxyPort() {
		return getMappedPort(PROXY_PORT);
	}

	/** The host port mapped to Envoy's admin interface. */
	public int getAdminPort() {
		return getMappedPort(ADMIN_PORT);
	}

	/** {@code http://host:port} of the fenced listener, for the test's HTTP client. */
	public String getProxyUrl() {
		return "http://" + getHost() + ":" + getProxyPort();
	}

	/** {@code http://host:port} of Envoy's admin interface. */
	public String getAdminUrl() {
		return "http://" + getHost() + ":" + getAdminPort();
	}

	/** Whether this container runs the filter (false after {@link #withoutFilter()}). */
	public boolean isFilterEnabled() {
		return this.filterEnabled;
	}

	/**
	 * The filter's stats by full name, read from the admin interface now: the path (and a
	 * refusal's reason) in Istio's tag form ahead of the name Prometheus shows, such as
	 * {@code wasmcustom.path=.=orders;.;pathfence_path_active}. Each worker adds its
	 * deltas on its tick, so a value may trail by a few milliseconds.
	 */
	public Map<String, Long> getPathFenceStats() {
		return getStats("^wasmcustom\\.path=");
	}

	/**
	 * One stat of one path now, summed over its tags; 0 when Envoy has not reported it
	 * yet. {@code stat} is the starter's meter name without {@code pathfence.path.}:
	 * {@code active}, {@code queued}, {@code granted}, {@code rejected} (both reasons),
	 * {@code rejected.queue-full}, {@code rejected.timeout}, or the filter's own
	 * {@code paused}.
	 * @throws IllegalArgumentException for any other {@code stat}
	 */
	public long getPathStat(String path, String stat) {
		Map<String, Long> stats = getPathFenceStats();
		String tag = "wasmcustom.path=.=" + path + ";.;";
		String rejected = "pathfence_path_rejected_total";
		return switch (stat) {
			case "active", "queued" -> stats.getOrDefault(tag + "pathfence_path_" + stat, 0L);
			case "granted", "paused" -> stats.getOrDefault(tag + "pathfence_path_" + stat + "_total", 0L);
			case "rejected.queue-full", "rejected.timeout" ->
				stats.getOrDefault(tag + "reason=.=" + stat.substring("rejected.".length()) + ";.;" + rejected, 0L);
			case "rejected" -> getPathStat(path, "rejected.queue-full") + getPathStat(path, "rejected.timeout");
			default -> throw new IllegalArgumentException("no filter stat '" + stat
					+ "': active, queued, granted, rejected, rejected.queue-full, rejected.timeout or paused");
		};
	}

	/**
	 * Envoy's {@code /stats/prometheus} now: the filter's stats under the starter's
	 * names, with {@code path} and {@code reason} as labels
	 * ({@code pathfence_path_active{path="orders"}}).
	 */
	public String getPrometheusStats() {
		return admin("/stats/prometheus");
	}

	/**
	 * Envoy's counters and gauges whose name matches the regular expression
	 * {@code filter}.
	 */
	public Map<String, Long> getStats(String filter) {
		String body = admin("/stats?filter=" + URLEncoder.encode(filter, StandardCharsets.UTF_8));
		Map<String, Long> stats = new LinkedHashMap<>();
		for (String line : body.split("\n")) {
			int colon = line.indexOf(": ");
			if (colon > 0) {
				try {
					stats.put(line.substring(0, colon), Long.parseLong(line.substring(colon + 2).trim()));
				}
				catch (NumberFormatException histogram) {
					// histograms print their quantiles, not a number; they are not stats
					// this method returns
				}
			}
		}
		return stats;
	}

	private String admin(String pathAndQuery) {
		HttpRequest request = HttpRequest.newBuilder(URI.create(getAdminUrl() + pathAndQuery))
			.timeout(Duration.ofSeconds(5))
			.build();
		try {
			HttpResponse<String> response = ADMIN_CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
			if (response.statusCode() != 200) {
				throw new IllegalStateException("Envoy admin " + pathAndQuery + " answered " + response.statusCode());
			}
			return response.body();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Envoy admin " + pathAndQuery + " failed", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("interrupted while reading Envoy admin " + pathAndQuery, ex);
		}
	}

}
