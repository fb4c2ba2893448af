package io.pathfence.sct.bench;

import com.netflix.concurrency.limits.Limit;
import com.netflix.concurrency.limits.limit.Gradient2Limit;
import com.netflix.concurrency.limits.limit.VegasLimit;
import io.pathfence.sct.ConcurrencyRecorder;
import io.pathfence.sct.Sample;
import io.pathfence.sct.Sct;
import io.pathfence.sct.SctConfig;
import io.pathfence.sct.SctResult;
import io.pathfence.sct.validation.EmulatedService;
import io.pathfence.sct.validation.HttpLoad;
import io.pathfence.sct.validation.OnlineTuning;
import io.pathfence.sct.validation.SimulatedServer;
import io.pathfence.sct.validation.Sweep;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * Issue 3 part 6, a benchmark and not a test: on the simulated services and on the real
 * embedded Tomcat, the limit chosen by SCT against those of Netflix concurrency-limits'
 * Gradient2 and Vegas, with the throughput and the mean and p99 response time measured at
 * each limit (a closed loop of exactly that many requests), and the sweep's knee for
 * reference. Prints a Markdown table.
 *
 * <p>
 * Run: {@code ./mvnw -B -ntp -pl sct-tuner test-compile exec:java@bench} (about three
 * minutes).
 *
 * <p>
 * How each limit is chosen. SCT: the online loop of the validation (a decision every 20 s
 * on the last 60 s of 50 ms samples under bursty load), settled value. Gradient2 and
 * Vegas: the limiter gates the same service under the same bursty load and is fed every
 * completion (start time, service time, in-flight count); its limit is the median of its
 * readings over the second half of the run: once a simulated second for 120 s on the
 * simulated services, every 500 ms for 8 s on Tomcat. Both start from 10, with a minimum
 * of 1.
 *
 * <p>
 * The machine's 1-minute load average is printed at the start, before the Tomcat rows and
 * at the end: the simulated rows do not depend on it, the Tomcat rows do.
 */
public final class LimitComparisonBenchmark {

	private static final long SEED = 2026;

	private static long tomcatFailures;

	/**
	 * Client threads for the Tomcat runs: a limit above this is measured with this many
	 * clients (and says so).
	 */
	private static final int MAX_CLIENTS = 128;

	private LimitComparisonBenchmark() {
	}

	public static void main(String[] args) throws Exception {
		System.setProperty("java.awt.headless", "true");
		List<String> loads = new ArrayList<>();
		loads.add(loadAverage("at the start"));
		List<String> rows = new ArrayList<>();
		rows.add(
				"| service | knee (sweep) | max throughput (sweep) | algorithm | limit | throughput | mean RT | p99 RT |");
		rows.add("|---|---:|---:|---|---:|---:|---:|---:|");
		for (SimulatedServer.Shape shape : List.of(
				new SimulatedServer.Shape("sim: 4 cores, 2 ms CPU + 6 ms I/O", 4, 2, 6, 0.02),
				new SimulatedServer.Shape("sim: 8 cores, 1 ms CPU + 2 ms I/O", 8, 1, 2, 0.05),
				new SimulatedServer.Shape("sim: 2 cores, 1 ms CPU + 9 ms I/O", 2, 1, 9, 0.05),
				new SimulatedServer.Shape("sim: 16 cores, 4 ms CPU + 28 ms I/O", 16, 4, 28, 0.01),
				new SimulatedServer.Shape("sim: 4 cores, 3 ms CPU + 3 ms I/O", 4, 3, 3, 0.08))) {
			simulated(shape, rows);
		}
		loads.add(loadAverage("before the Tomcat rows"));
		tomcat(rows);
		loads.add(loadAverage("at the end"));
		String table = String.join(System.lineSeparator(), rows);
		System.out.println("Tomcat requests failed during the benchmark: " + tomcatFailures);
		System.out.println("1-minute load average on " + Runtime.getRuntime().availableProcessors() + " cores: "
				+ String.join(", ", loads));
		System.out.println();
		System.out.println(table);
	}

	private static String loadAverage(String when) {
		String load = String.format(Locale.ROOT, "%.1f %s",
				ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(), when);
		System.out.println("load average: " + load);
		return load;
	}

	private static void simulated(SimulatedServer.Shape shape, List<String> rows) {
		int analytic = (int) Math.round(shape.analyticKnee());
		Sweep sweep = Sweep.of(Sweep.levels(2 * analytic, 24),
				n -> SimulatedServer.Session.closed(shape, n, SEED).run(4, null, null));
		int interval = shape.analyticKnee() > 64 ? 100 : 50;
		SctConfig config = SctConfig.builder().interval(Duration.ofMillis(interval)).build();
		OnlineTuning.Trace trace = OnlineTuning.run(shape, SimulatedServer.Load.bursty(), 3 * analytic, 15, config,
				SEED);
		int sct = trace.settled().orElse(trace.limits().get(trace.limits().size() - 1));
		int gradient2 = simulatedLimit(shape, LimitComparisonBenchmark::gradient2);
		int vegas = simulatedLimit(shape, LimitComparisonBenchmark::vegas);
		String prefix = String.format(Locale.ROOT, "| %s | %d | %.0f/s ", shape.name(), sweep.knee(),
				sweep.maxThroughput());
		for (Object[] algo : new Object[][] { { "SCT", sct }, { "Gradient2", gradient2 }, { "Vegas", vegas } }) {
			int limit = (Integer) algo[1];
			SimulatedServer.Measurement m = SimulatedServer.Session.closed(shape, limit, SEED).run(10, null, null);
			rows.add(prefix + row((String) algo[0], limit, m));
			System.out.println(rows.get(rows.size() - 1));
		}
	}

	private static int simulatedLimit(SimulatedServer.Shape shape, Supplier<Limit> factory) {
		Limit limit = factory.get();
		SimulatedServer.Session session = SimulatedServer.Session.open(shape, SimulatedServer.Load.bursty(),
				limit.getLimit(), SEED);
		SimulatedServer.CompletionListener feed = (s, admitted, now, inFlight) -> {
			limit.onSample(admitted, now - admitted, inFlight, false);
			s.limit(limit.getLimit());
		};
		int seconds = 120;
		int[] readings = new int[seconds / 2];
		for (int t = 0; t < seconds; t++) {
			session.run(1, null, feed);
			if (t >= seconds / 2) {
				readings[t - seconds / 2] = limit.getLimit();
			}
		}
		return median(readings);
	}

	private static void tomcat(List<String> rows) throws Exception {
		Path base = Files.createTempDirectory("sct-bench");
		try (EmulatedService service = new EmulatedService(base, 4, 20, 60);
				HttpLoad load = new HttpLoad(service.uri(), MAX_CLIENTS)) {
			load.clients(8);
			Thread.sleep(500);
			int[] levels = { 1, 8, 12, 14, 16, 18, 20, 24, 32 };
			double[] sweep = new double[levels.length];
			for (int i = 0; i < 2 * levels.length; i++) {
				int k = i < levels.length ? i : 2 * levels.length - 1 - i;
				sweep[k] += load.throughputAt(levels[k], 150, 700) / 2;
			}
			double max = Arrays.stream(sweep).max().orElseThrow();
			int knee = levels[0];
			for (int i = 0; i < levels.length; i++) {
				if (sweep[i] >= Sweep.KNEE_FRACTION * max) {
					knee = levels[i];
					break;
				}
			}

			SctConfig config = SctConfig.builder().interval(Duration.ofMillis(100)).build();
			ConcurrencyRecorder recorder = Sct.recorder(config, System::nanoTime);
			service.recorder(recorder);
			for (int c = 1; c <= 32; c++) {
				load.clients(c);
				Thread.sleep(300);
			}
			for (int c = 31; c >= 1; c--) {
				load.clients(c);
				Thread.sleep(300);
			}
			service.recorder(null);
			List<Sample> window = recorder.snapshot(System.nanoTime());
			SctResult result = Sct.analyzer(config).analyze(window);
			System.out.println("Tomcat SCT: " + result.reason());
			int sct = result.recommended().orElse(-1);

			int gradient2 = tomcatLimit(service, load, gradient2());
			int vegas = tomcatLimit(service, load, vegas());
			String prefix = String.format(Locale.ROOT, "| Tomcat: 4 units x 20 ms + 60 ms I/O | %d | %.0f/s ", knee,
					max);
			for (Object[] algo : new Object[][] { { "SCT", sct }, { "Gradient2", gradient2 }, { "Vegas", vegas } }) {
				int limit = (Integer) algo[1];
				if (limit < 1) {
					rows.add(prefix + "| " + algo[0] + " | none (" + result.verdict() + ") | | | |");
					continue;
				}
				SimulatedServer.Measurement m = load.measure(Math.min(limit, MAX_CLIENTS), 200, 1500);
				String shown = limit > MAX_CLIENTS ? limit + " (measured at " + MAX_CLIENTS + ")" : null;
				tomcatFailures = load.failures();
				rows.add(prefix + row((String) algo[0], limit, m).replaceFirst("\\| " + limit + " \\|",
						shown == null ? "| " + limit + " |" : "| " + shown + " |"));
				System.out.println(rows.get(rows.size() - 1));
			}
		}
	}

	/**
	 * The limiter gates the service under bursty load (48 clients for 2 s, 12 for 2 s,
	 * twice); its limit is read every 500 ms over 8 s, and the median of the last 8
	 * readings is its limit.
	 */
	private static int tomcatLimit(EmulatedService service, HttpLoad load, Limit limit) throws InterruptedException {
		service.gate(limit::getLimit,
				(admitted, serviceNanos, inFlight) -> limit.onSample(admitted, serviceNanos, inFlight, false));
		int[] readings = new int[16];
		for (int i = 0; i < 16; i++) {
			load.clients(i % 8 < 4 ? 48 : 12); // bursty: 2 s heavy, 2 s light
			Thread.sleep(500);
			readings[i] = limit.getLimit();
		}
		service.gate(null, null);
		return median(Arrays.copyOfRange(readings, 8, 16));
	}

	private static Limit gradient2() {
		return Gradient2Limit.newBuilder().initialLimit(10).minLimit(1).maxConcurrency(512).build();
	}

	private static Limit vegas() {
		return VegasLimit.newBuilder().initialLimit(10).maxConcurrency(512).build();
	}

	private static String row(String algorithm, int limit, SimulatedServer.Measurement m) {
		return String.format(Locale.ROOT, "| %s | %d | %.0f/s | %.1f ms | %.1f ms |", algorithm, limit, m.throughput(),
				m.meanMillis(), m.p99Millis());
	}

	private static int median(int[] values) {
		int[] sorted = values.clone();
		Arrays.sort(sorted);
		return sorted[(sorted.length - 1) / 2];
	}

}
