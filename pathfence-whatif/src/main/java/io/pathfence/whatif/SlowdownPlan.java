package io.pathfence.whatif;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * How much to pause every service but the target so that the application's measured
 * throughput predicts the throughput of an optimised target (Slowpoke, NSDI '26, §3).
 * <p>
 * With {@code c_i} the calls service {@code i} receives per end-user request
 * ({@link CallProfile}), {@code t} the target, {@code q_t} its cores (CPU-seconds per
 * second) and {@code d = r * u_t} the CPU time per call the optimisation removes (a
 * fraction {@code r} of the target's CPU time per call {@code u_t}, in seconds):
 * <ul>
 * <li>every other service {@code i} with {@code c_i > 0} is paused
 * {@code p_i = d * c_t / (q_t * c_i)} seconds per call it serves. Per end-user request
 * that adds {@code d * c_t / q_t} to each of their resource constraints, the amount the
 * optimisation would take off the target's, so the bottleneck of the slowed-down
 * application is the bottleneck of the optimised one (Slowpoke's eq. 8 and 10);</li>
 * <li>with {@code t_vs} the end-user throughput measured under those pauses (requests per
 * second), the optimised throughput {@code t_opt} is given by Slowpoke's eq. 9:
 * <pre>    1 / t_opt = 1 / t_vs - d * c_t / q_t</pre></li>
 * <li>pauses are paid in rounds, one started every {@code B} calls the target serves. A
 * round pays each paused service for the calls it served since its last payment: on
 * average {@code B * c_i / c_t} calls, that is {@code B * d / q_t} seconds, the same for
 * every service. Unless given, {@code B} is chosen so that this is about
 * {@link #DEFAULT_ROUND_PAUSE} (Slowpoke found a pause per call too costly, and a batch
 * of about a hundred calls cheap).</li>
 * </ul>
 * Only {@code d}, {@code q_t} and the {@code c_i} are needed: the other services' costs
 * and capacities are measured implicitly by running them.
 */
public final class SlowdownPlan {

	/** The pause a round aims for when no batch is given. */
	public static final Duration DEFAULT_ROUND_PAUSE = Duration.ofMillis(25);

	private final CallProfile profile;

	private final Optimization optimization;

	private final long batch;

	private final double targetCalls;

	private final Map<String, Double> pausesPerCall;

	private SlowdownPlan(CallProfile profile, Optimization optimization, long batch) {
		this.profile = profile;
		this.optimization = optimization;
		this.batch = batch;
		this.targetCalls = profile.callsPerRequest(optimization.target());
		Map<String, Double> pauses = new LinkedHashMap<>();
		double d = optimization.reductionNanosPerCall();
		profile.asMap().forEach((service, calls) -> {
			if (!service.equals(optimization.target()) && calls > 0) {
				pauses.put(service, d * this.targetCalls / (optimization.cores() * calls));
			}
		});
		this.pausesPerCall = Collections.unmodifiableMap(pauses);
	}

	/**
	 * The plan with the default batch: rounds of about {@link #DEFAULT_ROUND_PAUSE}.
	 * @param profile the calls per end-user request of every service, target included
	 * @param optimization the optimisation asked about; its reduction must be above 0
	 * @return the plan
	 * @throws IllegalArgumentException if the target is unknown or receives no calls, or
	 * the reduction is 0 (nothing to size the batch by: give it)
	 */
	public static SlowdownPlan of(CallProfile profile, Optimization optimization) {
		check(profile, optimization);
		double d = optimization.reductionNanosPerCall();
		if (d <= 0) {
			throw new IllegalArgumentException("a reduction of 0 pauses nothing, so it cannot size the batch: give "
					+ "the batch explicitly (the one of the runs it is compared with)");
		}
		long batch = Math.max(1, Math.round(DEFAULT_ROUND_PAUSE.toNanos() * optimization.cores() / d));
		return new SlowdownPlan(profile, optimization, batch);
	}

	/**
	 * The plan with rounds every {@code batch} target calls.
	 * @param profile the calls per end-user request of every service, target included
	 * @param optimization the optimisation asked about
	 * @param batch the target calls between two rounds, at least 1
	 * @return the plan
	 * @throws IllegalArgumentException if the target is unknown or receives no calls, or
	 * the batch is below 1
	 */
	public static SlowdownPlan of(CallProfile profile, Optimization optimization, long batch) {
		check(profile, optimization);
		if (batch < 1) {
			throw new IllegalArgumentException("batch must be at least 1 target call per round, was " + batch);
		}
		return new SlowdownPlan(profile, optimization, batch);
	}

	private static void check(CallProfile profile, Optimization optimization) {
		Objects.requireNonNull(profile, "profile");
		Objects.requireNonNull(optimization, "optimization");
		String target = optimization.target();
		if (!profile.contains(target)) {
			throw new IllegalArgumentException(
					"target '" + target + "' is not a service of the call profile (known: " + profile.services() + ")");
		}
		if (profile.callsPerRequest(target) <= 0) {
			throw new IllegalArgumentException("target '" + target
					+ "' receives no calls (0 per request): no end-user request reaches it, so optimising it changes nothing");
		}
	}

	/**
	 * The optimisation this plan emulates.
	 * @return the optimisation
	 */
	public Optimization optimization() {
		return this.optimization;
	}

	/**
	 * The call profile the plan was made from.
	 * @return the profile
	 */
	public CallProfile profile() {
		return this.profile;
	}

	/**
	 * The target calls between two rounds, {@code B}.
	 * @return the batch
	 */
	public long batch() {
		return this.batch;
	}

	/**
	 * The pause per call of every paused service, {@code p_i}: every service but the
	 * target that receives calls.
	 * @return nanoseconds per call, by service, in the profile's order
	 */
	public Map<String, Double> pausesPerCall() {
		return this.pausesPerCall;
	}

	/**
	 * The pause per call of one paused service, {@code p_i = d * c_t / (q_t * c_i)}.
	 * @param service a paused service
	 * @return nanoseconds per call it serves
	 * @throws IllegalArgumentException if the service is not paused by this plan
	 */
	public double pauseNanosPerCall(String service) {
		Double pause = this.pausesPerCall.get(service);
		if (pause == null) {
			throw new IllegalArgumentException(
					"'" + service + "' is not paused by this plan (paused: " + this.pausesPerCall.keySet() + ")");
		}
		return pause;
	}

	/**
	 * The calls a service receives per call the target serves, {@code c_i / c_t}: what a
	 * round charges it for when its own calls are not counted.
	 * @param service a service of the profile
	 * @return the ratio
	 */
	public double callsPerTargetCall(String service) {
		return this.profile.callsPerRequest(service) / this.targetCalls;
	}

	/**
	 * The pause of one round for each paused service, on average: {@code B * d / q_t}.
	 * @return nanoseconds
	 */
	public double roundPauseNanos() {
		return this.batch * this.optimization.reductionNanosPerCall() / this.optimization.cores();
	}

	/**
	 * The time the pauses add to each paused service per end-user request, and the
	 * optimisation takes off the target's: {@code d * c_t / q_t}.
	 * @return seconds per end-user request
	 */
	public double secondsPerRequest() {
		return this.optimization.reductionNanosPerCall() * this.targetCalls / this.optimization.cores() / 1e9;
	}

	/**
	 * The throughput the optimised application would reach, from the throughput measured
	 * under this plan's pauses: {@code 1 / t_opt = 1 / t_vs - d * c_t / q_t}.
	 * @param measuredThroughput {@code t_vs}, end-user requests per second completed
	 * under the pauses
	 * @return {@code t_opt}, end-user requests per second
	 * @throws IllegalArgumentException if the measured throughput is not positive, or so
	 * high that the pauses could not have allowed it (the inputs do not match the
	 * application)
	 */
	public double predictThroughput(double measuredThroughput) {
		if (!(Double.isFinite(measuredThroughput) && measuredThroughput > 0)) {
			throw new IllegalArgumentException(
					"the measured throughput must be a positive number of requests per second, was "
							+ measuredThroughput);
		}
		double inverse = 1 / measuredThroughput - secondsPerRequest();
		if (inverse <= 0) {
			throw new IllegalArgumentException(String.format(java.util.Locale.ROOT,
					"a measured throughput of %.1f/s is at or above %.1f/s, the most the pauses allow (q_t / (d * c_t)):"
							+ " the target's cores, CPU time per call or call ratio do not match the application",
					measuredThroughput, 1 / secondsPerRequest()));
		}
		return 1 / inverse;
	}

	@Override
	public String toString() {
		return "SlowdownPlan[" + this.optimization + ", batch " + this.batch + ", pauses per call (ns) "
				+ this.pausesPerCall + "]";
	}

}
