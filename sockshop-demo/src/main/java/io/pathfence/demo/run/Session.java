package io.pathfence.demo.run;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.DoubleUnaryOperator;

import io.pathfence.demo.topology.LoadStream;
import io.pathfence.demo.topology.MillibottleneckSource;
import io.pathfence.demo.topology.Service;
import io.pathfence.demo.topology.Topology;
import io.pathfence.testsupport.load.Arrivals;
import io.pathfence.testsupport.load.OpenLoopLoad;
import io.pathfence.testsupport.load.OpenLoopLoad.Stream;
import io.pathfence.testsupport.load.Outcome;
import io.pathfence.testsupport.load.Recorder;
import io.pathfence.whatif.profile.ProcessGroupCpu;

/**
 * One application's services for a series of measurements: started once, switched from
 * mode to mode (restarting only the services the new mode runs differently, then warming
 * them up: classes, compiled code, connections), measured under a trace with its
 * millibottlenecks, under a varying path mix, or in a closed loop, and always stopped at
 * the end. For an application run elsewhere ({@code --front-end}) it only loads it.
 */
public final class Session implements AutoCloseable {

	/**
	 * The seed of every run's arrivals: each mode gets the same requests at the same
	 * times.
	 */
	static final long SEED = 20250605;

	/**
	 * The warm-up of a sidecar restarted with a learned configuration: long enough for
	 * the callers' connections to it to be made anew.
	 */
	static final Duration RESTARTED_SIDECAR_WARM_UP = Duration.ofSeconds(3);

	private final Settings settings;

	private final Topology topology;

	private final PrintStream out;

	private Cluster cluster;

	public Session(Settings settings, PrintStream out) {
		this.settings = settings;
		this.topology = settings.topology();
		this.out = out;
	}

	/**
	 * Starts the services as the mode runs them (or switches the running ones to it) and
	 * warms them up; an application run elsewhere is only warmed up.
	 */
	public void prepare(Mode mode) throws IOException, InterruptedException {
		if (this.settings.externalFrontEnd() != null) {
			this.out.printf("== %s: loading %s%n", mode, this.settings.externalFrontEnd());
			warmUp(gateway(), mode, this.settings.warmUp());
			return;
		}
		long startedAt = System.nanoTime();
		if (this.cluster == null) {
			this.out.printf("== %s: starting the %d services of %s%n", mode, this.topology.services().size(),
					this.topology.name());
			this.cluster = Cluster.start(this.settings, mode, this.settings.results().resolve("logs"));
			this.out.printf("   up in %.1f s%n", (System.nanoTime() - startedAt) / 1e9);
		}
		else {
			this.out.printf("== %s: switching the services of %s%n", mode, this.topology.name());
			int restarted = this.cluster.switchTo(mode);
			this.out.printf("   restarted %d of %d in %.1f s%n", restarted, this.topology.services().size(),
					(System.nanoTime() - startedAt) / 1e9);
		}
		warmUp(gateway(), mode, this.settings.warmUp());
		if (mode.learnsFilterFromTraces()) {
			learnFilter(mode);
		}
	}

	/**
	 * Learns the shared service's filter configuration from the warm-up's traces, writes
	 * both to the results, restarts the sidecar with it and warms it up briefly (its
	 * connections are new).
	 */
	private void learnFilter(Mode mode) throws IOException, InterruptedException {
		Path traces = this.settings.results().resolve(mode.id() + "-warm-up-traces.json");
		int spans = this.cluster.writeTracesSinceSwitch(traces);
		Service shared = this.topology.sharedService().orElseThrow();
		LearnedFilterConfig.Learned learned = LearnedFilterConfig.from(traces, shared.name(), shared.fence(),
				this.settings.filterTuning());
		Path config = this.settings.results().resolve(mode.id() + "-filter.json");
		Files.writeString(config, learned.json());
		this.out.printf("   learned %s's paths from the warm-up's %d spans (%s):%n", shared.name(), spans, traces);
		learned.summary().forEach((line) -> this.out.println("     " + line));
		this.cluster.useFilter(learned.json());
		this.out.printf("   the sidecar runs with %s%n", config);
		warmUp(gateway(), mode, RESTARTED_SIDECAR_WARM_UP);
	}

	private String gateway() {
		return (this.cluster != null) ? this.cluster.baseUrl(this.topology.gateway())
				: this.settings.externalFrontEnd();
	}

	@Override
	public void close() {
		if (this.cluster != null) {
			this.cluster.close();
			this.cluster = null;
		}
	}

	private void warmUp(String gateway, Mode mode, Duration length) throws InterruptedException {
		if (length.isZero()) {
			return;
		}
		OpenLoopLoad load = load();
		try (ProgressBar bar = new ProgressBar(this.out, "   " + mode + " warm-up", length.toSeconds(),
				() -> "sent " + load.sent())) {
			run(load, streams(gateway, (t) -> 1), length, SEED - 1, (path, at, micros, answer) -> {
			});
		}
	}

	/**
	 * Measures the fault-free then the faulted time under the trace (a fault-free time of
	 * zero measures only the faulted one). The faulted time's arrivals are drawn afresh
	 * from {@link #SEED} when it begins, so every mode's cell gets the same requests at
	 * the same times whether or not a fault-free time came first; the fault-free time has
	 * a seed of its own. An application run elsewhere gets its stalls through its
	 * trigger, on the same schedule; without one, nothing is injected.
	 */
	public ModeResult measure(Mode mode, Trace trace, Duration faultFree, Duration faulted)
			throws InterruptedException {
		Settings s = this.settings;
		Cluster cluster = this.cluster;
		String gateway = gateway();
		double faultFreeSeconds = faultFree.toNanos() / 1e9;
		Duration length = faultFree.plus(faulted);
		Map<String, PathRecord> faultFreeRecords = records();
		Map<String, PathRecord> faultedRecords = records();
		PathRecord overall = new PathRecord();
		AtomicInteger rejected = new AtomicInteger();
		AtomicInteger slow = new AtomicInteger();
		OpenLoopLoad referenceLoad = load();
		OpenLoopLoad faultedLoad = load();
		long origin = System.nanoTime();
		long measureStartEpochMillis = System.currentTimeMillis();
		StallSwitch stallSwitch = stallSwitch(cluster);
		Millibottlenecks faults = new Millibottlenecks(stallSwitch, s.stalledService(), origin,
				origin + faultFree.plus(s.millibottleneck().offset()).toNanos(), s.millibottleneck().length().toNanos(),
				s.millibottleneck().period().toNanos(), origin + length.toNanos());
		Set<Integer> ports = (cluster != null) ? cluster.listeningPorts() : Set.of();
		AtomicLong dropsAtFaultedStart = new AtomicLong(-1);
		Thread injector = Thread.ofPlatform().name("millibottlenecks").start(() -> {
			try {
				Millibottlenecks.sleepUntil(origin + faultFree.toNanos());
				dropsAtFaultedStart.set(ports.isEmpty() ? -1 : ListenDrops.read(ports));
				if (stallSwitch != null) {
					faults.run();
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		});
		Recorder count = (path, at, micros, answer) -> {
			if (answer.outcome() == Outcome.REJECTED) {
				rejected.incrementAndGet();
			}
			if (micros > 1_000_000) {
				slow.incrementAndGet();
			}
		};
		Trace reference = s.referenceTrace(trace);
		boolean stalls = stallSwitch != null;
		Thread referenceRun = null;
		try (ProgressBar bar = new ProgressBar(this.out, "   " + mode + " " + trace + " measuring", length.toSeconds(),
				() -> String.format("sent %d, in flight %d, 503 %d, >1s %d%s",
						referenceLoad.sent() + faultedLoad.sent(), referenceLoad.inFlight() + faultedLoad.inFlight(),
						rejected.get(), slow.get(),
						(stalls && faults.isStopped()) ? ", " + s.stalledService() + " STALLED" : ""))) {
			if (!faultFree.isZero()) {
				List<Stream> referenceStreams = streams(gateway, reference::multiplierAt);
				referenceRun = Thread.ofPlatform().name("fault-free-load").start(() -> {
					try {
						run(referenceLoad, referenceStreams, faultFree, SEED + 7, (path, at, micros, answer) -> {
							faultFreeRecords.get(path).record(at, micros, answer.outcome());
							count.record(path, at, micros, answer);
						});
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
				});
			}
			Millibottlenecks.sleepUntil(origin + faultFree.toNanos());
			run(faultedLoad, streams(gateway, trace::multiplierAt), faulted, SEED, (path, at, micros, answer) -> {
				faultedRecords.get(path).record(faultFreeSeconds + at, micros, answer.outcome());
				overall.record(faultFreeSeconds + at, micros, answer.outcome());
				count.record(path, at, micros, answer);
			});
			if (referenceRun != null) {
				// Its last answers came long ago, as nothing was stalled then.
				referenceRun.join();
			}
		}
		finally {
			if (referenceRun != null && referenceRun.isAlive()) {
				referenceRun.interrupt();
				referenceRun.join();
			}
			injector.interrupt();
			injector.join();
		}
		long dropsAfter = ports.isEmpty() ? -1 : ListenDrops.read(ports);
		long drops = (dropsAtFaultedStart.get() >= 0 && dropsAfter >= 0) ? dropsAfter - dropsAtFaultedStart.get() : -1;
		Map<String, List<PathRecord.Point>> points = new LinkedHashMap<>();
		faultFreeRecords.forEach((path, record) -> {
			List<PathRecord.Point> all = new ArrayList<>(record.points());
			all.addAll(faultedRecords.get(path).points());
			points.put(path, all);
		});
		List<double[]> bands = stalls ? faults.stalls() : (s.millibottleneck().source() == MillibottleneckSource.BURST)
				? trace.bursts(faultFreeSeconds, length.toNanos() / 1e9) : List.of();
		String shared = this.topology.sharedService().map(Service::name).orElse(null);
		return new ModeResult(mode, trace, stats(faultFreeRecords), stats(faultedRecords), overall.stats(), points,
				faultFreeSeconds, bands, measureStartEpochMillis, System.currentTimeMillis(),
				(cluster != null) ? cluster.occupancyFile(this.topology.gateway()) : null,
				(cluster != null && shared != null) ? cluster.occupancyFile(shared) : null, drops);
	}

	private StallSwitch stallSwitch(Cluster cluster) {
		if (cluster != null) {
			return cluster.stallSwitch(this.settings.stalledService(), this.settings.millibottleneck().source());
		}
		return (this.settings.stallTrigger() != null) ? new RemoteStallTrigger(this.settings.stallTrigger()) : null;
	}

	/**
	 * Every path's stream into the gateway, the bursting ones at their base rate times
	 * {@code multiplier} (of seconds since the run began).
	 */
	private List<Stream> streams(String gateway, DoubleUnaryOperator multiplier) {
		return streams(gateway, (stream) -> stream.bursts() ? multiplier : (t) -> 1, Trace.HIGHEST_MULTIPLIER);
	}

	/**
	 * Every path's stream into the gateway at its base rate times its own multiplier,
	 * which never exceeds {@code highest}.
	 */
	private List<Stream> streams(String gateway,
			java.util.function.Function<LoadStream, DoubleUnaryOperator> multiplierOf, double highest) {
		List<Stream> streams = new ArrayList<>();
		for (LoadStream stream : this.topology.load()) {
			double base = this.settings.rate(stream.path());
			DoubleUnaryOperator multiplier = multiplierOf.apply(stream);
			streams.add(new Stream(stream.path(), stream.method(), URI.create(gateway + stream.route()),
					Arrivals.poisson((t) -> base * multiplier.applyAsDouble(t), base * highest)));
		}
		return streams;
	}

	/**
	 * Loads the services with a varying mix of two paths and no millibottleneck, and
	 * records the mean response time per second and the shared service's CPU.
	 */
	public MixResult mix(Mode mode, PathMix mix) throws InterruptedException {
		int seconds = (int) Math.ceil(PathMix.LENGTH_SECONDS);
		double[] sums = new double[seconds];
		int[] counts = new int[seconds];
		String shared = this.topology.sharedService().map(Service::name).orElse(null);
		long start = System.currentTimeMillis();
		List<double[]> cpu = new ArrayList<>();
		Thread sampler = Thread.ofPlatform().daemon().name("shared-cpu").start(() -> {
			if (this.cluster == null || shared == null) {
				return;
			}
			long pid = this.cluster.pid(shared);
			ProcessGroupCpu meter = new ProcessGroupCpu();
			long origin = System.nanoTime();
			long before = cpuNanos(meter, pid);
			long at = origin;
			try {
				while (true) {
					Thread.sleep(500);
					long now = System.nanoTime();
					long used = cpuNanos(meter, pid);
					if (before >= 0 && used >= 0) {
						cpu.add(new double[] { (at - origin) / 1e9, (used - before) / (double) (now - at) });
					}
					before = used;
					at = now;
				}
			}
			catch (InterruptedException ex) {
				// The mix is over.
			}
		});
		OpenLoopLoad load = load();
		try (ProgressBar bar = new ProgressBar(this.out, "   " + mode + " path mix", seconds,
				() -> String.format("sent %d, in flight %d", load.sent(), load.inFlight()))) {
			run(load, streams(gateway(), (stream) -> (t) -> mix.multiplier(stream.path(), t), PathMix.PEAK),
					java.time.Duration.ofMillis((long) (PathMix.LENGTH_SECONDS * 1000)), SEED + 13,
					(path, at, micros, answer) -> {
						int bin = Math.min(seconds - 1, (int) at);
						synchronized (sums) {
							sums[bin] += micros / 1000.0;
							counts[bin]++;
						}
					});
		}
		finally {
			sampler.interrupt();
			sampler.join();
		}
		List<double[]> bins = new ArrayList<>();
		for (int i = 0; i < seconds; i++) {
			bins.add(new double[] { i, (counts[i] > 0) ? sums[i] / counts[i] : 0, counts[i] });
		}
		return new MixResult(mode, bins, cpu,
				(this.cluster != null && shared != null) ? this.cluster.occupancyFile(shared) : null, start,
				System.currentTimeMillis());
	}

	/** The CPU time the process has used so far, or -1 when it cannot be read. */
	private static long cpuNanos(ProcessGroupCpu meter, long pid) {
		try {
			return meter.usedByProcess(pid).toNanos();
		}
		catch (IOException | RuntimeException ex) {
			return -1;
		}
	}

	/**
	 * The most the services answer in a closed loop of {@code users} (the paper's Fig.
	 * 12), the paths mixed in proportion to their base rates.
	 */
	public Throughput closedLoop(Mode mode, int users, Duration ramp, Duration measured) throws InterruptedException {
		List<ClosedLoopLoad.Request> requests = new ArrayList<>();
		for (LoadStream stream : this.topology.load()) {
			requests.add(new ClosedLoopLoad.Request(stream.path(), stream.method(),
					URI.create(gateway() + stream.route()), this.settings.rate(stream.path())));
		}
		ClosedLoopLoad load = new ClosedLoopLoad(this.settings.requestTimeout());
		try (ProgressBar bar = new ProgressBar(this.out, "   " + mode + " closed loop (" + users + " users)",
				ramp.plus(measured).toSeconds(), () -> "")) {
			return load.run(requests, users, ramp, measured, SEED + 29);
		}
	}

	/**
	 * A load through the demo's own sender. Only {@code --front-end} points it at an
	 * application elsewhere; otherwise it keeps to loopback.
	 */
	private OpenLoopLoad load() {
		OpenLoopLoad load = new OpenLoopLoad(new HttpSender(this.settings.requestTimeout()));
		return (this.settings.externalFrontEnd() != null) ? load.allowingRemoteTargets() : load;
	}

	/**
	 * Runs the load, then waits for the answers still out for as long as a request may
	 * take and a little more.
	 */
	private void run(OpenLoopLoad load, List<Stream> streams, Duration length, long seed, Recorder recorder)
			throws InterruptedException {
		load.run(streams, length, seed, this.settings.requestTimeout().plusSeconds(3), recorder);
	}

	private Map<String, PathRecord> records() {
		Map<String, PathRecord> records = new LinkedHashMap<>();
		this.topology.paths().forEach((path) -> records.put(path, new PathRecord()));
		return records;
	}

	private static Map<String, PathStats> stats(Map<String, PathRecord> records) {
		Map<String, PathStats> stats = new LinkedHashMap<>();
		records.forEach((path, record) -> stats.put(path, record.stats()));
		return stats;
	}

}
