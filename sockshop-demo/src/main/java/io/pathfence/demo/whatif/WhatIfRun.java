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
	 * More users than the saturating load's half may add this much throughput and the
	 * load still counts as saturating: beyond it, the closed loop still waits on itself.
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

	WhatIfRun(WhatIfOptions options, Settings settings, AgentLauncher launcher, PrintStream out) {
		this.options = options;
		this.topology = settings.topology();
		this.settings = settings;
		this.launcher = launcher;
		this.out = out;
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

			// The profiling run is also the saturating load's throughput.
			Map<String, URI> metrics = new LinkedHashMap<>();
			this.topology.services()
				.keySet()
				.forEach((service) -> metrics.put(service,
						URI.create(cluster.baseUrl(service) + "/actuator/prometheus")));
			AtomicLong completed = new AtomicLong();
			AtomicLong completedThroughTarget = new AtomicLong();
			CallProfiler profiler = CallProfiler.start(metrics, target, this.launcher.servicePid(target));
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
			// Half the users after the full load, so that a system still warming up
			// favours
			// the half and cannot pass for saturated.
			int half = Math.max(1, users / 2);
			Throughput halfLoad = load.run(mix, half, Duration.ofSeconds(1), this.options.measure(), SEED + 1,
					(request, ok) -> {
					});
			checkSaturated(half, halfLoad, users, full);
			CallProfile profile = profiled.profile();
			// The rounds count the target's calls from the requests that reach it as they
			// complete: this many calls each, as the profiling run measured.
			double targetCallsPerRequest = (double) profiled.servedCalls().get(target)
					/ Math.max(1, completedThroughTarget.get());
			Duration cpuPerCall = profiled.targetCpuPerCall();
			this.out.printf(
					"profile: %s; %s's CPU per call %.2f ms on %s core(s); saturating load %.1f req/s "
							+ "(%d users; %.1f req/s with %d)%n",
					describe(profile), target, cpuPerCall.toNanos() / 1e6, format(cores), full.okPerSecond(), users,
					halfLoad.okPerSecond(), half);
			checkValidatable(cpuPerCall);

			WhatIfResult result = new WhatIfResult(target, profile, cpuPerCall, cores);
			for (int repetition = 1; repetition <= this.options.repetitions(); repetition++) {
				if (repetition > 1 && this.options.validate()) {
					this.launcher.cpuTime(target, this.options.baseCpuTime());
					cluster.restart(target);
					checkStillPinned();
					load.run(mix, users, Duration.ZERO, this.options.warmUp(), SEED, (request, ok) -> {
					});
				}
				Throughput baseline = measure(load, mix, null, 0, throughTarget, repetition);
				result.baseline(repetition, baseline.okPerSecond());
				this.out.printf("repetition %d: baseline %.1f req/s%n", repetition, baseline.okPerSecond());
				for (double reduction : this.options.reductions()) {
					SlowdownPlan plan = plan(profile, reduction, cpuPerCall, cores);
					Throughput slowed = measure(load, mix, plan, targetCallsPerRequest, throughTarget, repetition);
					double predicted = predict(plan, slowed.okPerSecond());
					result.slowed(repetition, reduction, plan, slowed.okPerSecond(), predicted);
					this.out.printf(
							"  %s: with pauses %.1f req/s (B = %d calls, rounds of %.1f ms) -> predicted %.1f "
									+ "req/s%n",
							percent(reduction), slowed.okPerSecond(), plan.batch(), plan.roundPauseNanos() / 1e6,
							predicted);
				}
				if (this.options.validate()) {
					for (double reduction : this.options.reductions()) {
						Duration faster = this.options.baseCpuTime()
							.minusNanos(Math.round(reduction * cpuPerCall.toNanos()));
						this.launcher.cpuTime(target, faster);
						cluster.restart(target);
						checkStillPinned();
						load.run(mix, users, Duration.ZERO, this.options.warmUp(), SEED, (request, ok) -> {
						});
						Throughput truth = measure(load, mix, null, 0, throughTarget, repetition);
						result.truth(repetition, reduction, truth.okPerSecond());
						this.out.printf("  %s: ground truth (%s at %.2f ms simulated CPU per call) %.1f req/s%n",
								percent(reduction), target, faster.toNanos() / 1e6, truth.okPerSecond());
					}
				}
			}
			return result;
		}
	}

	/**
	 * The closed loop's throughput, under the plan's coordinated pauses when there is
	 * one.
	 */
	private Throughput measure(ClosedLoopLoad load, List<ClosedLoopLoad.Request> mix, SlowdownPlan plan,
			double targetCallsPerRequest, Set<String> throughTarget, int repetition)
			throws IOException, InterruptedException {
		Duration ramp = Duration.ofSeconds(2);
		long seed = SEED + 100L * repetition;
		if (plan == null || plan.pausesPerCall().isEmpty()) {
			return load.run(mix, this.options.users(), ramp, this.options.measure(), seed, (request, ok) -> {
			});
		}
		Map<String, PauseAgentClient> clients = new LinkedHashMap<>();
		try {
			Map<String, Pauser> pausers = new LinkedHashMap<>();
			for (String service : plan.pausesPerCall().keySet()) {
				PauseAgentClient client = this.launcher.connect(service);
				clients.put(service, client);
				long before = this.roundsBefore;
				pausers.put(service, (round, nanos) -> client.pause(before + round, nanos));
			}
			AtomicLong throughTargetDone = new AtomicLong();
			AtomicBoolean running = new AtomicBoolean(true);
			Throughput throughput;
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
					throughput = load.run(mix, this.options.users(), ramp, this.options.measure(), seed,
							(request, ok) -> {
								if (ok && throughTarget.contains(request.path())) {
									throughTargetDone.incrementAndGet();
								}
							});
				}
				finally {
					running.set(false);
					reporter.join();
				}
				rounds.awaitIdle(Duration.ofSeconds(10));
				this.roundsBefore += rounds.rounds();
				for (ServicePauses pauses : rounds.report()) {
					if (pauses.failures() > 0) {
						throw new IllegalStateException(pauses.service() + "'s pauses failed " + pauses.failures()
								+ " times (last: " + pauses.lastFailure() + "): the run is void");
					}
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
		return new TargetCores().pinnedAlone(target, others);
	}

	private void checkSaturated(int half, Throughput halfLoad, int users, Throughput full) {
		if (full.okPerSecond() <= 0) {
			throw new WhatIfRefusal("the load cannot saturate the shop: no request of " + users
					+ " users was answered 2xx; see the services' logs in " + this.settings.results().resolve("logs"));
		}
		if (full.okPerSecond() > (1 + SATURATION_GAIN) * halfLoad.okPerSecond()) {
			throw new WhatIfRefusal(String.format(
					"the load cannot saturate the shop: %d users got %.1f req/s and %d got %.1f req/s, more than %.0f %%"
							+ " apart, so the closed loop still waits on itself; run with more --users",
					half, halfLoad.okPerSecond(), users, full.okPerSecond(), SATURATION_GAIN * 100));
		}
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

	private List<ClosedLoopLoad.Request> mix(Cluster cluster) {
		List<ClosedLoopLoad.Request> requests = new ArrayList<>();
		String gateway = cluster.baseUrl(this.topology.gateway());
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
