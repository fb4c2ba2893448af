package io.pathfence.demo.whatif;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.pathfence.demo.run.ClosedLoopLoad;
import io.pathfence.demo.run.Cluster;
import io.pathfence.demo.run.Mode;
import io.pathfence.demo.run.Settings;
import io.pathfence.demo.run.Throughput;
import io.pathfence.demo.topology.LoadStream;
import io.pathfence.demo.topology.Topology;
import io.pathfence.whatif.CallProfile;
import io.pathfence.whatif.Optimization;
import io.pathfence.whatif.SlowdownPlan;
import io.pathfence.whatif.agent.PauseAgentClient;
import io.pathfence.whatif.profile.CallProfiler;
import io.pathfence.whatif.profile.TargetCores;
import io.pathfence.whatif.rounds.Pauser;
import io.pathfence.whatif.rounds.RoundCoordinator;
import io.pathfence.whatif.rounds.ServicePauses;

/**
 * One what-if run on the local shop, every service under its pause agent and pinned:
 * profile, check the load saturates, measure the baseline, then per reduction the
 * throughput under coordinated pauses and, when asked, the ground truth with the target
 * really faster.
 */
final class WhatIfRun {

	/**
	 * The most users may get this much more, or less, throughput than half of them and
	 * the load still counts as saturating, the shop as steady.
	 */
	static final double SATURATION_GAIN = 0.15;

	private static final long SEED = 20;

	private final WhatIfOptions options;

	private final Topology topology;

	private final Settings settings;

	private final AgentLauncher launcher;

	private final PrintStream out;

	/**
	 * Rounds paid so far over the agents' life: an agent pays a round at most once and
	 * refuses any not newer than its last, so each run's rounds are numbered on from
	 * here.
	 */
	private long roundsBefore;

	/** What pays the rounds. */
	private Mechanism mechanism = Mechanism.AGENT;

	/** The filter mechanism's sidecars, or null when the agents pay the rounds. */
	private FilterSidecars sidecars;

	WhatIfRun(WhatIfOptions options, Settings settings, AgentLauncher launcher, PrintStream out) {
		this.options = options;
		this.topology = settings.topology();
		this.settings = settings;
		this.launcher = launcher;
		this.out = out;
	}

	/**
	 * Pays the rounds by this mechanism: with the filter, through the one in front of
	 * each paused service instead of its agent, and the load reaches the gateway through
	 * its sidecar.
	 * @param sidecars the filter's sidecars, null with the agents
	 */
	WhatIfRun through(Mechanism mechanism, FilterSidecars sidecars) {
		if ((mechanism == Mechanism.FILTER) != (sidecars != null)) {
			throw new IllegalArgumentException("the filter mechanism needs its sidecars, and only it: " + mechanism);
		}
		this.mechanism = mechanism;
		this.sidecars = sidecars;
		return this;
	}

	WhatIfResult run() throws IOException, InterruptedException {
		String target = this.options.target();
		try (Cluster cluster = Cluster.start(this.settings, Mode.BASELINE, this.settings.results().resolve("logs"),
				this.launcher)) {
			double cores = targetCores();
			List<ClosedLoopLoad.Request> mix = mix(cluster);
			Set<String> throughTarget = pathsThrough(target);
			if (throughTarget.isEmpty()) {
				throw new WhatIfRefusal("no path of " + this.topology.name() + "'s load reaches " + target);
			}
			ClosedLoopLoad load = new ClosedLoopLoad(this.settings.requestTimeout());
			int users = this.options.users();
			this.out.printf("warming up (%d users, %d s)%n", users, this.options.warmUp().toSeconds());
			load.run(mix, users, Duration.ZERO, this.options.warmUp(), SEED, (request, ok) -> {
			});

			// Saturation: fewer users first, so that a shop still warming up favours the
			// most users and cannot pass for saturated. The profiling run is the last
			// count's run.
			Set<Integer> counts = new TreeSet<>(List.of(Math.max(1, users / 4), Math.max(1, users / 2)));
			Map<Integer, Double> curve = new LinkedHashMap<>();
			for (int count : counts) {
				curve.put(count, load
					.run(mix, count, Duration.ofSeconds(1), this.options.measure(), SEED + count, (request, ok) -> {
					})
					.okPerSecond());
			}
			Map<String, URI> metrics = new LinkedHashMap<>();
			this.topology.services()
				.keySet()
				.forEach((service) -> metrics.put(service,
						URI.create(cluster.baseUrl(service) + "/actuator/prometheus")));
			AtomicLong completed = new AtomicLong();
			AtomicLong completedThroughTarget = new AtomicLong();
			CallProfiler profiler;
			try {
				profiler = CallProfiler.start(metrics, target, this.launcher.servicePid(target));
			}
			catch (IOException ex) {
				throw profilingFailed(ex);
			}
			Throughput full = load.run(mix, users, Duration.ZERO, this.options.profile(), SEED + 2, (request, ok) -> {
				if (ok) {
					completed.incrementAndGet();
					if (throughTarget.contains(request.path())) {
						completedThroughTarget.incrementAndGet();
					}
				}
			});
			CallProfiler.ProfilingRun profiled;
			try {
				profiled = profiler.finish(completed.get());
			}
			catch (IllegalArgumentException ex) {
				throw new WhatIfRefusal("the profiling run measured nothing: " + ex.getMessage());
			}
			catch (IOException ex) {
				throw profilingFailed(ex);
			}
			curve.put(users, full.okPerSecond());
			checkSaturated(curve);
			CallProfile profile = profiled.profile();
			// The rounds count the target's calls from the requests that reach it as they
			// complete: this many calls each, as the profiling run measured.
			double targetCallsPerRequest = (double) profiled.servedCalls().get(target)
					/ Math.max(1, completedThroughTarget.get());
			Duration cpuPerCall = profiled.targetCpuPerCall();
			this.out.printf("profile: %s; %s's CPU per call %.2f ms on %s core(s); saturating load %s%n",
					describe(profile), target, cpuPerCall.toNanos() / 1e6, format(cores), describe(curve));
			checkValidatable(cpuPerCall);

			WhatIfResult result = new WhatIfResult(target, profile, cpuPerCall, cores);
			for (int repetition = 1; repetition <= this.options.repetitions(); repetition++) {
				if (repetition > 1 && this.options.validate()) {
					this.launcher.cpuTime(target, this.options.baseCpuTime());
					cluster.restart(target);
					checkStillPinned();
					load.run(mix, users, Duration.ZERO, this.options.restartWarmUp(), SEED, (request, ok) -> {
					});
				}
				Measurement baseline = measure(load, mix, null, 0, throughTarget, repetition);
				result.baseline(repetition, baseline);
				this.out.printf("repetition %d: baseline %.1f req/s (%s)%n", repetition, baseline.throughput(),
						baseline.describe());
				if (this.options.validate()) {
					// The rounds of the smallest reduction, each pause 0: what stopping
					// and
					// continuing costs by itself, against the baseline just measured.
					SlowdownPlan smallest = plan(profile,
							this.options.reductions().stream().min(Double::compare).orElseThrow(), cpuPerCall, cores);
					SlowdownPlan none = SlowdownPlan.of(profile, new Optimization(target, 0, cpuPerCall, cores),
							smallest.batch());
					Measurement zero = measure(load, mix, none, targetCallsPerRequest, throughTarget, repetition);
					result.pausesOfZero(repetition, zero);
					this.out.printf("  pauses of 0 (B = %d calls): %.1f req/s, %+.1f %% from the baseline (%s)%n",
							none.batch(), zero.throughput(), (zero.throughput() / baseline.throughput() - 1) * 100,
							zero.describe());
				}
				for (double reduction : this.options.reductions()) {
					SlowdownPlan plan = plan(profile, reduction, cpuPerCall, cores);
					Measurement slowed = measure(load, mix, plan, targetCallsPerRequest, throughTarget, repetition);
					double predicted = predict(plan, slowed.throughput());
					result.slowed(repetition, reduction, plan, slowed, predicted);
					this.out.printf(
							"  %s: with pauses %.1f req/s (B = %d calls, rounds of %.1f ms) -> predicted %.1f "
									+ "req/s (%s)%n",
							percent(reduction), slowed.throughput(), plan.batch(), plan.roundPauseNanos() / 1e6,
							predicted, slowed.describe());
				}
				if (this.options.validate()) {
					for (double reduction : this.options.reductions()) {
						Duration faster = this.options.baseCpuTime()
							.minusNanos(Math.round(reduction * cpuPerCall.toNanos()));
						this.launcher.cpuTime(target, faster);
						cluster.restart(target);
						checkStillPinned();
						load.run(mix, users, Duration.ZERO, this.options.restartWarmUp(), SEED, (request, ok) -> {
						});
						Measurement truth = measure(load, mix, null, 0, throughTarget, repetition);
						result.truth(repetition, reduction, truth);
						this.out.printf("  %s: ground truth (%s at %.2f ms simulated CPU per call) %.1f req/s (%s)%n",
								percent(reduction), target, faster.toNanos() / 1e6, truth.throughput(),
								truth.describe());
					}
				}
			}
			return result;
		}
	}

	/**
	 * The closed loop's throughput in each window of the measured run, under the plan's
	 * coordinated pauses when there is one.
	 */
	private Measurement measure(ClosedLoopLoad load, List<ClosedLoopLoad.Request> mix, SlowdownPlan plan,
			double targetCallsPerRequest, Set<String> throughTarget, int repetition)
			throws IOException, InterruptedException {
		Duration ramp = this.options.settle();
		long seed = SEED + 100L * repetition;
		if (plan == null || plan.pausesPerCall().isEmpty()) {
			WindowCounter windows = windows(ramp);
			load.run(mix, this.options.users(), ramp, this.options.measure(), seed, windows);
			return windows.measurement(this.options.nearestMedian());
		}
		Map<String, PauseAgentClient> clients = new LinkedHashMap<>();
		PauseWork work = new PauseWork();
		try {
			Map<String, Pauser> pausers = new LinkedHashMap<>();
			for (String service : plan.pausesPerCall().keySet()) {
				Pauser pauser;
				if (this.sidecars != null) {
					pauser = this.sidecars.pauser(service);
				}
				else {
					PauseAgentClient client;
					try {
						client = this.launcher.connect(service);
					}
					catch (IOException ex) {
						throw new WhatIfFailure(service + " cannot be paused: " + ex.getMessage(), ex);
					}
					clients.put(service, client);
					pauser = client::pause;
				}
				long before = this.roundsBefore;
				pausers.put(service, work.measured(service, this.launcher.servicePid(service),
						(round, nanos) -> pauser.pause(before + round, nanos)));
			}
			try {
				work.start();
			}
			catch (IOException ex) {
				throw new WhatIfFailure("a paused service's process could not be read: " + ex.getMessage(), ex);
			}
			AtomicLong throughTargetDone = new AtomicLong();
			AtomicBoolean running = new AtomicBoolean(true);
			Measurement throughput;
			try (RoundCoordinator rounds = RoundCoordinator.start(plan, pausers, Map.of(), 0)) {
				// One thread reports the target's count, as the coordinator asks; often
				// enough
				// that a round starts within a fraction of a millisecond of its call.
				Thread reporter = Thread.ofPlatform().daemon().name("whatif-rounds").start(() -> {
					while (running.get()) {
						rounds.targetServed((long) (throughTargetDone.get() * targetCallsPerRequest));
						LockSupport.parkNanos(200_000);
					}
				});
				try {
					WindowCounter windows = windows(ramp);
					load.run(mix, this.options.users(), ramp, this.options.measure(), seed, (request, ok) -> {
						windows.ended(request, ok);
						if (ok && throughTarget.contains(request.path())) {
							throughTargetDone.incrementAndGet();
						}
					});
					throughput = windows.measurement(this.options.nearestMedian());
				}
				finally {
					running.set(false);
					reporter.join();
				}
				rounds.awaitIdle(Duration.ofSeconds(10));
				this.roundsBefore += rounds.rounds();
				for (ServicePauses pauses : rounds.report()) {
					if (pauses.failures() > 0) {
						throw new WhatIfFailure(String.format(
								"%s's pauses failed %d of %d times (last: %s), so the throughput measured under "
										+ "them at %s is void",
								pauses.service(), pauses.failures(), pauses.failures() + pauses.roundsPaid(),
								pauses.lastFailure(), percent(plan.optimization().reduction())), null);
					}
				}
				try {
					work.finish(this.mechanism.toString(), plan.optimization().reduction(), repetition,
							this.settings.results(), this.out);
				}
				catch (IOException ex) {
					// The work during pauses is a side figure: a service gone from /proc
					// or an unwritable CSV costs it, not the throughput.
					this.out.println("Work during pauses not measured: " + ex.getMessage());
				}
			}
			return throughput;
		}
		finally {
			for (PauseAgentClient client : clients.values()) {
				client.close();
			}
		}
	}

	/** Windows that start when a run starting now ends its ramp. */
	private WindowCounter windows(Duration ramp) {
		return new WindowCounter(System.nanoTime() + ramp.toNanos(), this.options.measure(), this.options.windows());
	}

	private WhatIfFailure profilingFailed(IOException ex) {
		return new WhatIfFailure("the profiling run failed: " + ex.getMessage(), ex);
	}

	private double targetCores() {
		try {
			return checkStillPinned();
		}
		catch (IllegalStateException ex) {
			throw new WhatIfRefusal(ex.getMessage());
		}
	}

	private int checkStillPinned() {
		Map<String, Long> others = new LinkedHashMap<>(this.launcher.servicePids());
		long target = others.remove(this.options.target());
		others.put("the load generator", ProcessHandle.current().pid());
		if (this.sidecars != null) {
			others.putAll(this.sidecars.pids());
		}
		return new TargetCores().pinnedAlone(target, others);
	}

	/**
	 * The load saturates when its two largest user counts get throughputs within
	 * {@link #SATURATION_GAIN} of each other, either way: more, and the closed loop still
	 * waits on itself; less, and the shop was still warming up (or collapses under the
	 * most users), so runs measured later would not be comparable.
	 */
	private void checkSaturated(Map<Integer, Double> curve) {
		List<Integer> counts = List.copyOf(curve.keySet());
		int users = counts.get(counts.size() - 1);
		int half = counts.get(counts.size() - 2);
		double full = curve.get(users);
		double halfLoad = curve.get(half);
		if (full <= 0) {
			throw new WhatIfRefusal("the load cannot saturate the shop: no request of " + users
					+ " users was answered 2xx; see the services' logs in " + this.settings.results().resolve("logs"));
		}
		if (full > (1 + SATURATION_GAIN) * halfLoad) {
			throw new WhatIfRefusal(String.format(
					"the load cannot saturate the shop: %s, the last two more than %.0f %% apart, so the closed loop "
							+ "still waits on itself, or the shop was still warming up; run with more --users or a "
							+ "longer --warm-up",
					describe(curve), SATURATION_GAIN * 100));
		}
		if (full < (1 - SATURATION_GAIN) * halfLoad) {
			throw new WhatIfRefusal(String
				.format("the shop's throughput is not steady: %s, the most users more than %.0f %% below fewer, so it "
						+ "was still warming up or collapses under the load; run with a longer --warm-up or fewer "
						+ "--users", describe(curve), SATURATION_GAIN * 100));
		}
	}

	private static String describe(Map<Integer, Double> curve) {
		return String.join(", ",
				curve.entrySet()
					.stream()
					.map((count) -> String.format("%d users %.1f req/s", count.getKey(), count.getValue()))
					.toList());
	}

	private void checkValidatable(Duration cpuPerCall) {
		if (!this.options.validate()) {
			return;
		}
		double largest = this.options.reductions().stream().mapToDouble(Double::doubleValue).max().orElse(0);
		long cut = Math.round(largest * cpuPerCall.toNanos());
		if (cut >= this.options.baseCpuTime().toNanos()) {
			throw new WhatIfRefusal(String.format(
					"--validate: a %s cut of %s's %.2f ms of CPU per call is %.2f ms, more than the %.2f ms of "
							+ "simulated CPU time the demo can take away; give it more with --cpu-time %s=...",
					percent(largest), this.options.target(), cpuPerCall.toNanos() / 1e6, cut / 1e6,
					this.options.baseCpuTime().toNanos() / 1e6, this.options.target()));
		}
	}

	private SlowdownPlan plan(CallProfile profile, double reduction, Duration cpuPerCall, double cores) {
		Optimization optimization = new Optimization(this.options.target(), reduction, cpuPerCall, cores);
		return (this.options.batch() > 0) ? SlowdownPlan.of(profile, optimization, this.options.batch())
				: SlowdownPlan.of(profile, optimization);
	}

	/**
	 * The prediction, or NaN where the measured throughput is beyond what the pauses
	 * allow.
	 */
	private static double predict(SlowdownPlan plan, double measured) {
		try {
			return plan.predictThroughput(measured);
		}
		catch (IllegalArgumentException ex) {
			return Double.NaN;
		}
	}

	private List<ClosedLoopLoad.Request> mix(Cluster cluster) throws IOException {
		List<ClosedLoopLoad.Request> requests = new ArrayList<>();
		String gateway = cluster.baseUrl(this.topology.gateway());
		if (this.sidecars != null) {
			gateway = this.sidecars.front(this.topology.gateway(), URI.create(gateway)).toString();
		}
		for (LoadStream stream : this.topology.load()) {
			requests.add(new ClosedLoopLoad.Request(stream.path(), stream.method(),
					URI.create(gateway + stream.route()), this.settings.rate(stream.path())));
		}
		return requests;
	}

	private Set<String> pathsThrough(String service) {
		Set<String> paths = new java.util.LinkedHashSet<>();
		for (LoadStream stream : this.topology.load()) {
			if (this.topology.servicesOn(stream).contains(service)) {
				paths.add(stream.path());
			}
		}
		return paths;
	}

	private static String describe(CallProfile profile) {
		StringBuilder text = new StringBuilder("calls per request");
		profile.asMap().forEach((service, calls) -> text.append(String.format(" %s %.2f", service, calls)));
		return text.toString();
	}

	static String percent(double fraction) {
		double percent = fraction * 100;
		return (Math.abs(percent - Math.rint(percent)) < 1e-9) ? Math.round(percent) + " %"
				: String.format("%.1f %%", percent);
	}

	private static String format(double cores) {
		return (cores == Math.rint(cores)) ? Long.toString((long) cores) : Double.toString(cores);
	}

}
