package io.pathfence.whatif;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * How many calls each service receives per end-user request: Slowpoke's {@code c_i}.
 * <p>
 * It is an average over the request mix, so a service called by only some kinds of
 * request, or several times by one, is described as well as one called once by every
 * request. A profiling run measures it: each service's served-call count divided by the
 * end-user requests completed in the same time ({@link #measured}).
 */
public final class CallProfile {

	private final Map<String, Double> callsPerRequest;

	private CallProfile(Map<String, Double> callsPerRequest) {
		this.callsPerRequest = Collections.unmodifiableMap(callsPerRequest);
	}

	/**
	 * A profile from known ratios.
	 * @param callsPerRequest each service's average calls per end-user request
	 * @return the profile
	 * @throws IllegalArgumentException if there is no service, or a ratio is negative or
	 * not finite
	 */
	public static CallProfile of(Map<String, ? extends Number> callsPerRequest) {
		Objects.requireNonNull(callsPerRequest, "callsPerRequest");
		if (callsPerRequest.isEmpty()) {
			throw new IllegalArgumentException("a call profile needs at least one service");
		}
		Map<String, Double> copy = new LinkedHashMap<>();
		callsPerRequest.forEach((service, calls) -> {
			Objects.requireNonNull(service, "service");
			double value = Objects.requireNonNull(calls, () -> "calls of service '" + service + "'").doubleValue();
			if (!Double.isFinite(value) || value < 0) {
				throw new IllegalArgumentException("calls per request of service '" + service
						+ "' must be a finite number of at least 0, was " + value);
			}
			copy.put(service, value);
		});
		return new CallProfile(copy);
	}

	/**
	 * A profile from a profiling run's counts.
	 * @param servedCalls each service's calls served during the run
	 * @param completedRequests the end-user requests completed during the same run
	 * @return each count divided by the completed requests
	 * @throws IllegalArgumentException if no request completed or a count is negative
	 */
	public static CallProfile measured(Map<String, Long> servedCalls, long completedRequests) {
		Objects.requireNonNull(servedCalls, "servedCalls");
		if (completedRequests < 1) {
			throw new IllegalArgumentException("completed requests must be at least 1, was " + completedRequests
					+ ": the profiling run completed no end-user request");
		}
		Map<String, Double> ratios = new LinkedHashMap<>();
		servedCalls.forEach((service, served) -> {
			if (served == null || served < 0) {
				throw new IllegalArgumentException(
						"served calls of service '" + service + "' must be at least 0, was " + served);
			}
			ratios.put(service, (double) served / completedRequests);
		});
		return of(ratios);
	}

	/**
	 * The average calls {@code service} receives per end-user request.
	 * @param service a service of this profile
	 * @return its {@code c_i}
	 * @throws IllegalArgumentException if the profile does not know the service
	 */
	public double callsPerRequest(String service) {
		Double calls = this.callsPerRequest.get(service);
		if (calls == null) {
			throw new IllegalArgumentException(
					"'" + service + "' is not a service of the call profile (known: " + services() + ")");
		}
		return calls;
	}

	/**
	 * Whether the profile knows {@code service}.
	 * @param service a service name
	 * @return whether it has a ratio here
	 */
	public boolean contains(String service) {
		return this.callsPerRequest.containsKey(service);
	}

	/**
	 * The services, in the order given.
	 * @return the services' names
	 */
	public Set<String> services() {
		return this.callsPerRequest.keySet();
	}

	/**
	 * Every service's ratio, in the order given.
	 * @return an unmodifiable view
	 */
	public Map<String, Double> asMap() {
		return this.callsPerRequest;
	}

	@Override
	public String toString() {
		return "CallProfile" + this.callsPerRequest;
	}

}
