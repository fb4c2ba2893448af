package io.pathfence.demo.run;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import io.pathfence.demo.service.Paths;
import io.pathfence.demo.service.Role;

/**
 * Runs the shop in each mode under the same trace (the same seeded arrivals) and the same
 * millibottlenecks: fresh services, a warm-up, the fault-free time, then the faulted
 * time.
 */
public final class Experiment {

	/**
	 * The paths measured, in the table's order: the two through orders, orders' local
	 * requests, catalogue.
	 */
	public static final List<String> PATHS = List.of(Paths.PLACE_ORDER, Paths.ORDER_HISTORY, Paths.LOCAL, "catalogue");

	private static final long SEED = 20250605;

	private final Settings settings;

	private final PrintStream out;

	public Experiment(Settings settings, PrintStream out) {
		this.settings = settings;
		this.out = out;
	}

	public List<ModeResult> run() throws IOException, InterruptedException {
		List<ModeResult> results = new java.util.ArrayList<>();
		for (Mode mode : this.settings.modes()) {
			results.add(run(mode));
		}
		return results;
	}

	ModeResult run(Mode mode) throws IOException, InterruptedException {
		Path folder = this.settings.results().resolve(mode.id());
		Path frontEndOccupancy = folder.resolve("front-end-occupancy.csv");
		Path ordersOccupancy = folder.resolve("orders-occupancy.csv");
		if (this.settings.externalFrontEnd() != null) {
			this.out.printf("== %s: loading %s%n", mode, this.settings.externalFrontEnd());
			warmUp(this.settings.externalFrontEnd(), mode);
			return measure(null, this.settings.externalFrontEnd(), mode, null, null);
		}
		this.out.printf("== %s: starting the seven services%n", mode);
		long startedAt = System.nanoTime();
		try (Cluster cluster = Cluster.start(this.settings, mode, folder.resolve("logs"),
				Map.of(Role.FRONT_END, frontEndOccupancy, Role.ORDERS, ordersOccupancy))) {
			this.out.printf("   up in %.1f s%n", (System.nanoTime() - startedAt) / 1e9);
			String frontEnd = cluster.baseUrl(Role.FRONT_END);
			warmUp(frontEnd, mode);
			return measure(cluster, frontEnd, mode, frontEndOccupancy, ordersOccupancy);
		}
	}

	private void warmUp(String frontEnd, Mode mode) throws InterruptedException {
		OpenLoopLoad load = new OpenLoopLoad(this.settings.requestTimeout());
		try (ProgressBar bar = new ProgressBar(this.out, "   " + mode + " warm-up", this.settings.warmUp().toSeconds(),
				() -> "sent " + load.sent())) {
			load.run(streams(frontEnd, Trace.FLAT), this.settings.warmUp(), SEED - 1, (path, at, micros, outcome) -> {
			});
		}
	}

	/**
	 * Measures the fault-free then the faulted time. A shop run elsewhere gets its stalls
	 * through its trigger, on the same schedule; without one, nothing is injected.
	 */
	private ModeResult measure(Cluster cluster, String frontEnd, Mode mode, Path frontEndOccupancy,
			Path ordersOccupancy) throws InterruptedException {
		Settings s = this.settings;
		double faultFreeSeconds = s.faultFree().toNanos() / 1e9;
		Duration length = s.faultFree().plus(s.faulted());
		Map<String, PathRecord> faultFree = records();
		Map<String, PathRecord> faulted = records();
		AtomicInteger rejected = new AtomicInteger();
		AtomicInteger slow = new AtomicInteger();
		OpenLoopLoad load = new OpenLoopLoad(s.requestTimeout());
		long origin = System.nanoTime();
		long measureStartEpochMillis = System.currentTimeMillis();
		StallSwitch stallSwitch = stallSwitch(cluster);
		Millibottlenecks faults = new Millibottlenecks(stallSwitch, s.stalledService(), origin,
				origin + s.faultFree().plus(s.stallOffset()).toNanos(), s.stallLength().toNanos(),
				s.stallPeriod().toNanos(), origin + length.toNanos());
		Thread injector = new Thread((stallSwitch != null) ? faults : () -> {
		}, "millibottlenecks");
		injector.start();
		try (ProgressBar bar = new ProgressBar(this.out, "   " + mode + " measuring", length.toSeconds(),
				() -> String.format("sent %d, in flight %d, 503 %d, >1s %d%s", load.sent(), load.inFlight(),
						rejected.get(), slow.get(),
						faults.isStopped() ? ", " + s.stalledService() + " STOPPED" : ""))) {
			load.run(streams(frontEnd, s.trace()), length, SEED, (path, at, micros, outcome) -> {
				(at < faultFreeSeconds ? faultFree : faulted).get(path).record(at, micros, outcome);
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
		Map<String, List<PathRecord.Point>> points = new LinkedHashMap<>();
		faultFree.forEach((path, record) -> {
			List<PathRecord.Point> all = new java.util.ArrayList<>(record.points());
			all.addAll(faulted.get(path).points());
			points.put(path, all);
		});
		return new ModeResult(mode, stats(faultFree), stats(faulted), points, faultFreeSeconds, faults.stalls(),
				measureStartEpochMillis, frontEndOccupancy, ordersOccupancy);
	}

	private StallSwitch stallSwitch(Cluster cluster) {
		if (cluster != null) {
			return cluster.stallSwitch(Role.of(this.settings.stalledService()));
		}
		return (this.settings.stallTrigger() != null) ? new RemoteStallTrigger(this.settings.stallTrigger()) : null;
	}

	private List<OpenLoopLoad.Stream> streams(String frontEnd, Trace trace) {
		Settings s = this.settings;
		double burstPeak = s.placeOrderRate() * 4;
		return List.of(
				new OpenLoopLoad.Stream(Paths.PLACE_ORDER, true, URI.create(frontEnd + "/place-order"),
						(t) -> s.placeOrderRate() * trace.multiplierAt(t), burstPeak),
				new OpenLoopLoad.Stream(Paths.ORDER_HISTORY, false, URI.create(frontEnd + "/order-history"),
						(t) -> s.orderHistoryRate(), s.orderHistoryRate()),
				new OpenLoopLoad.Stream(Paths.LOCAL, false, URI.create(frontEnd + "/order-status"),
						(t) -> s.localRate(), s.localRate()),
				new OpenLoopLoad.Stream("catalogue", false, URI.create(frontEnd + "/catalogue"),
						(t) -> s.catalogueRate(), s.catalogueRate()));
	}

	private static Map<String, PathRecord> records() {
		Map<String, PathRecord> records = new LinkedHashMap<>();
		PATHS.forEach((path) -> records.put(path, new PathRecord()));
		return records;
	}

	private static Map<String, PathStats> stats(Map<String, PathRecord> records) {
		Map<String, PathStats> stats = new LinkedHashMap<>();
		records.forEach((path, record) -> stats.put(path, record.stats()));
		return stats;
	}

}
