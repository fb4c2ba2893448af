package io.pathfence.whatif.profile;

import java.util.List;
import java.util.function.Predicate;

/**
 * How many calls a service has served so far, from its Prometheus text: the sum of
 * Micrometer's {@code http.server.requests} timer counts
 * ({@code http_server_requests_seconds_count}) over every series but those of the
 * actuator's own endpoints. The scrapes that read the count, and the platform's health
 * probes, are requests too, and no end-user request causes them.
 */
public final class ServedCalls {

	/**
	 * The count of Micrometer's {@code http.server.requests} timer, as Prometheus names
	 * it.
	 */
	public static final String METRIC = "http_server_requests_seconds_count";

	/**
	 * Requests to these URIs (the actuator's, as Spring Boot tags them) are not counted.
	 */
	public static final String NOT_COUNTED_PREFIX = "/actuator";

	private ServedCalls() {
	}

	/**
	 * The calls served, from an exposition.
	 * @param prometheusText the service's Prometheus text
	 * @return the sum of the counts of its application's requests
	 * @throws IllegalArgumentException if the text has no {@code http.server.requests}
	 * count at all: the service does not export it, and its calls cannot be counted
	 */
	public static long in(String prometheusText) {
		List<PrometheusText.Sample> samples = PrometheusText.parse(prometheusText)
			.stream()
			.filter((sample) -> sample.name().equals(METRIC))
			.toList();
		if (samples.isEmpty()) {
			throw new IllegalArgumentException("no " + METRIC + " in the metrics: the service does not export "
					+ "Micrometer's http.server.requests to Prometheus, so its served calls cannot be counted");
		}
		Predicate<PrometheusText.Sample> application = (
				sample) -> !sample.labels().getOrDefault("uri", "").startsWith(NOT_COUNTED_PREFIX);
		return Math.round(samples.stream().filter(application).mapToDouble(PrometheusText.Sample::value).sum());
	}

}
