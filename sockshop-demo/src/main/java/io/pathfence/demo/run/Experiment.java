package io.pathfence.demo.run;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.DoubleUnaryOperator;

import io.pathfence.demo.topology.LoadStream;
import io.pathfence.demo.topology.MillibottleneckSource;
import io.pathfence.demo.topology.Service;
import io.pathfence.demo.topology.Topology;

/**
 * Runs an application in each mode under the same trace (the same seeded arrivals) and
 * the same millibottlenecks: a warm-up, the fault-free time, then the faulted time. The
 * services are started once and a mode switch restarts only those the new mode runs
 * differently; the warm-up after each switch gives restarted services their classes,
 * compiled code and connections before anything is measured.
 */
public final class Experiment {

	/**
	 * The seed of every run's arrivals: each mode gets the same requests at the same
	 * times.
	 */
	static final long SEED = 20250605;

	private final Settings settings;

	private final Topology topology;

	private final PrintStream out;

	public Experiment(Settings settings, PrintStream out) {
		this.settings = settings;
		this.topology = settings.topology();
		this.out = out;
	}

	public List<ModeResult> run() throws IOException, InterruptedException {
		List<ModeResult> results = new ArrayList<>();
		String external = this.settings.externalFrontEnd();
		if (external != null) {
			for (Mode mode : this.settings.modes()) {
				this.out.printf("== %s: loading %s%n", mode, external);
				warmUp(external, mode);
				results.add(measure(null, external, mode, this.settings.trace(), this.settings.faultFree(),
						this.settings.faulted()));
			}
			return results;
		}
		Cluster cluster = null;
		try {
			for (Mode mode : this.settings.modes()) {
				cluster = prepare(cluster, mode);
				results.add(measure(cluster, cluster.baseUrl(this.topology.gateway()), mode, this.settings.trace(),
						this.settings.faultFree(), this.settings.faulted()));
			}
			return results;
		}
		finally {
			if (cluster != null) {
				cluster.close();
			}
		}
	}

	/**
	 * Starts the services as the mode runs them (or switches a running cluster to it) and
	 * warms them up.
	 */
	Cluster prepare(Cluster running, Mode mode) throws IOException, InterruptedException {
		long startedAt = System.nanoTime();
		Cluster cluster = running;
		if (cluster == null) {
			this.out.printf("== %s: starting the %d services of %s%n", mode, this.topology.services().size(),
					this.topology.name());
			cluster = Cluster.start(this.settings, mode, this.settings.results().resolve("logs"));
			this.out.printf("   up in %.1f s%n", (System.nanoTime() - startedAt) / 1e9);
		}
		else {
			this.out.printf("== %s: switching the services of %s%n", mode, this.topology.name());
			int restarted = cluster.switchTo(mode);
			this.out.printf("   restarted %d of %d in %.1f s%n", restarted, this.topology.services().size(),
					(System.nanoTime() - startedAt) / 1e9);
		}
		warmUp(cluster.baseUrl(this.topology.gateway()), mode);
		return cluster;
	}

	private void warmUp(String gateway, Mode mode) throws InterruptedException {
		if (this.settings.warmUp().isZero()) {
			return;
		}
		OpenLoopLoad load = new OpenLoopLoad(this.settings.requestTimeout());
		try (ProgressBar bar = new ProgressBar(this.out, "   " + mode + " warm-up", this.settings.warmUp().toSeconds(),
				() -> "sent " + load.sent())) {
			load.run(streams(gateway, (t) -> 1), this.settings.warmUp(), SEED - 1, (path, at, micros, outcome) -> {
			});
		}
	}

	/**
	 * Measures the fault-free then the faulted time under the trace. A shop run elsewhere
	 * gets its stalls through its trigger, on the same schedule; without one, nothing is
	 * injected.
	 */
	ModeResult measure(Cluster cluster, String gateway, Mode mode, Trace trace, Duration faultFree, Duration faulted)
			throws InterruptedException {
		Settings s = this.settings;
		double faultFreeSeconds = faultFree.toNanos() / 1e9;
		Duration length = faultFree.plus(faulted);
		Map<String, PathRecord> faultFreeRecords = records();
		Map<String, PathRecord> faultedRecords = records();
		PathRecord overall = new PathRecord();
		AtomicInteger rejected = new AtomicInteger();
		AtomicInteger slow = new AtomicInteger();
		OpenLoopLoad load = new OpenLoopLoad(s.requestTimeout());
		long origin = System.nanoTime();
		long measureStartEpochMillis = System.currentTimeMillis();
		StallSwitch stallSwitch = stallSwitch(cluster);
		Millibottlenecks faults = new Millibottlenecks(stallSwitch, s.stalledService(), origin,
				origin + faultFree.plus(s.millibottleneck().offset()).toNanos(), s.millibottleneck().length().toNanos(),
				s.millibottleneck().period().toNanos(), origin + length.toNanos());
		AtomicLong dropsAtFaultedStart = new AtomicLong(-1);
		Thread injector = Thread.ofPlatform().name("millibottlenecks").start(() -> {
			try {
				Millibottlenecks.sleepUntil(origin + faultFree.toNanos());
				dropsAtFaultedStart.set(ListenDrops.read());
				if (stallSwitch != null) {
					faults.run();
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		});
		Trace reference = s.referenceTrace(trace);
		DoubleUnaryOperator multiplier = (t) -> (t < faultFreeSeconds) ? reference.multiplierAt(t)
				: trace.multiplierAt(t - faultFreeSeconds);
		boolean stalls = stallSwitch != null;
		try (ProgressBar bar = new ProgressBar(this.out, "   " + mode + " " + trace + " measuring", length.toSeconds(),
				() -> String.format("sent %d, in flight %d, 503 %d, >1s %d%s", load.sent(), load.inFlight(),
						rejected.get(), slow.get(),
						(stalls && faults.isStopped()) ? ", " + s.stalledService() + " STALLED" : ""))) {
			load.run(streams(gateway, multiplier), length, SEED, (path, at, micros, outcome) -> {
				if (at < faultFreeSeconds) {
					faultFreeRecords.get(path).record(at, micros, outcome);
				}
				else {
					faultedRecords.get(path).record(at, micros, outcome);
					overall.record(at, micros, outcome);
				}
				if (outcome == Outcome.REJECTED) {
					rejected.incrementAndGet();
				}
				if (micros > 1_000_000) {
					slow.incrementAndGet();
				}
			});
		}
		finally {
			injector.interrupt();
			injector.join();
		}
		long dropsAfter = ListenDrops.read();
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
	List<OpenLoopLoad.Stream> streams(String gateway, DoubleUnaryOperator multiplier) {
		List<OpenLoopLoad.Stream> streams = new ArrayList<>();
		for (LoadStream stream : this.topology.load()) {
			double base = this.settings.rate(stream.path());
			URI uri = URI.create(gateway + stream.route());
			if (stream.bursts()) {
				streams.add(new OpenLoopLoad.Stream(stream.path(), stream.method(), uri,
						(t) -> base * multiplier.applyAsDouble(t), base * Trace.HIGHEST_MULTIPLIER));
			}
			else {
				streams.add(new OpenLoopLoad.Stream(stream.path(), stream.method(), uri, (t) -> base, base));
			}
		}
		return streams;
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
