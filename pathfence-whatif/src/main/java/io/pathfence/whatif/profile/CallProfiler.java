package io.pathfence.whatif.profile;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import io.pathfence.whatif.CallProfile;

/**
 * A profiling run: measures each service's calls per end-user request ({@code c_i}) and
 * the target's CPU time per call, the inputs of a what-if experiment, from the running
 * application rather than assumptions.
 * <p>
 * {@link #start} reads every service's served calls (its Prometheus text, see
 * {@link ServedCalls}) and the target's CPU time ({@link ProcessGroupCpu}); the caller
 * then drives the application and counts the end-user requests that completed
 * successfully; {@link #finish} reads both again. Each {@code c_i} is the service's calls
 * served in between divided by those requests, and the target's CPU time per call its CPU
 * time used in between divided by its calls served.
 * <p>
 * A server counts a request once its response has gone, so requests in flight at either
 * end may be counted on the wrong side: at most the load's concurrency, which a run of
 * many requests makes negligible.
 */
public final class CallProfiler {

	/**
	 * How long a service may take to answer a scrape: a stopped or overwhelmed service
	 * fails the run instead of holding it up.
	 */
	static final Duration SCRAPE_TIMEOUT = Duration.ofSeconds(5);

	private final Map<String, URI> metrics;

	private final String target;

	private final long targetPid;

	private final ProcessGroupCpu cpu;

	private final HttpClient http;

	private final Duration scrapeTimeout;

	private final Map<String, Long> servedAtStart;

	private final Duration cpuAtStart;

	private CallProfiler(Map<String, URI> metrics, String target, long targetPid, ProcessGroupCpu cpu,
			Duration scrapeTimeout) throws IOException {
		this.metrics = metrics;
		this.target = target;
		this.targetPid = targetPid;
		this.cpu = cpu;
		this.scrapeTimeout = scrapeTimeout;
		this.http = HttpClient.newBuilder().connectTimeout(scrapeTimeout).build();
		this.cpuAtStart = cpu.used(targetPid);
		this.servedAtStart = served();
	}

	/**
	 * Starts a profiling run.
	 * @param metrics each service's Prometheus endpoint, such as
	 * {@code http://127.0.0.1:8081/actuator/prometheus}
	 * @param target the service whose optimisation is in question; one of {@code metrics}
	 * @param targetPid the target's process (the pause agent's child, which leads its
	 * process group)
	 * @return the run, with its starting counts read
	 * @throws IOException if a service's metrics or the target's CPU time cannot be read;
	 * a service that does not answer within {@link #SCRAPE_TIMEOUT} is named
	 * @throws IllegalArgumentException if the target has no metrics endpoint, or a
	 * service does not export its served calls
	 */
	public static CallProfiler start(Map<String, URI> metrics, String target, long targetPid) throws IOException {
		return start(metrics, target, targetPid, new ProcessGroupCpu(), SCRAPE_TIMEOUT);
	}

	static CallProfiler start(Map<String, URI> metrics, String target, long targetPid, ProcessGroupCpu cpu,
			Duration scrapeTimeout) throws IOException {
		Objects.requireNonNull(target, "target");
		if (!metrics.containsKey(target)) {
			throw new IllegalArgumentException("the target '" + target + "' is not among the services profiled "
					+ metrics.keySet() + ": give its metrics endpoint too");
		}
		return new CallProfiler(new LinkedHashMap<>(metrics), target, targetPid, cpu, scrapeTimeout);
	}

	/**
	 * Ends the run.
	 * @param completedRequests the end-user requests that completed successfully since
	 * {@link #start}
	 * @return the measured inputs
	 * @throws IOException if a service's metrics or the target's CPU time cannot be read
	 * @throws IllegalArgumentException if no request completed, or the target served no
	 * call (its CPU time per call is then unknown)
	 */
	public ProfilingRun finish(long completedRequests) throws IOException {
		Duration targetCpu = this.cpu.used(this.targetPid).minus(this.cpuAtStart);
		Map<String, Long> servedAtEnd = served();
		Map<String, Long> served = new LinkedHashMap<>();
		servedAtEnd.forEach((service, count) -> served.put(service, count - this.servedAtStart.get(service)));
		CallProfile profile = CallProfile.measured(served, completedRequests);
		long targetCalls = served.get(this.target);
		if (targetCalls < 1) {
			throw new IllegalArgumentException("the target '" + this.target + "' served no call during the profiling"
					+ " run: its CPU time per call cannot be measured");
		}
		return new ProfilingRun(profile, served, completedRequests, targetCpu, targetCpu.dividedBy(targetCalls));
	}

	private Map<String, Long> served() throws IOException {
		Map<String, Long> served = new LinkedHashMap<>();
		for (Map.Entry<String, URI> service : this.metrics.entrySet()) {
			String text;
			try {
				text = scrape(service.getValue());
			}
			catch (IOException ex) {
				throw new IOException(service.getKey() + "'s metrics (" + service.getValue() + ") could not be read: "
						+ ex.getMessage(), ex);
			}
			try {
				served.put(service.getKey(), ServedCalls.in(text));
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException(
						service.getKey() + " (" + service.getValue() + "): " + ex.getMessage(), ex);
			}
		}
		return served;
	}

	private String scrape(URI uri) throws IOException {
		HttpRequest request = HttpRequest.newBuilder(uri).timeout(this.scrapeTimeout).GET().build();
		try {
			HttpResponse<String> response = this.http.send(request, HttpResponse.BodyHandlers.ofString());
			if (response.statusCode() != 200) {
				throw new IOException("it answered " + response.statusCode() + ", not the service's metrics");
			}
			return response.body();
		}
		catch (HttpTimeoutException ex) {
			throw new IOException("no answer within " + this.scrapeTimeout.toMillis() + " ms", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IOException("interrupted", ex);
		}
	}

	/**
	 * What a profiling run measured.
	 *
	 * @param profile each service's calls per end-user request
	 * @param servedCalls each service's calls served during the run
	 * @param completedRequests the end-user requests completed during the run
	 * @param targetCpu the CPU time the target used during the run
	 * @param targetCpuPerCall the target's CPU time per call served ({@code u_t})
	 */
	public record ProfilingRun(CallProfile profile, Map<String, Long> servedCalls, long completedRequests,
			Duration targetCpu, Duration targetCpuPerCall) {
	}

}
