package io.pathfence.benchmarks.starter;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Benchmark, not a test: what the starter costs a Spring Boot service per inbound
 * request. The same service jar runs as a separate JVM on loopback once per variant and
 * round, with the starter and without its auto-configuration, under a moderate paced load
 * and a saturating closed loop. Rounds alternate the variants' order; the verdicts are
 * medians of the per-round differences.
 * <p>
 * Run by {@code scripts/bench-starter.sh [rounds] [seconds]}, which builds the service
 * and installs wrk. {@code PATHFENCE_BENCH_VARIANTS} (comma-separated, default
 * {@code without,starter}) adds the variants that show where the cost goes: {@code noop},
 * {@code lookup}, {@code classify}, {@code no-metrics}; {@code without-again} is the
 * baseline once more, for the benchmark's resolution; {@code calls}, {@code configured},
 * {@code observe} and {@code enforce} measure discovery (enforce against configured is
 * the cost of learning and of learned classification, the fence being on the same routes
 * in both).
 */
public final class StarterBenchmark {

	/** The routes of both loads, taken in turn: one per fenced path and the local one. */
	static final List<String> ROUTES = List.of("/orders/1", "/catalog/1", "/local/1");

	/**
	 * The service's JVM, the same for every variant: a fixed heap (no resizing during a
	 * measurement), the default collector and JIT named explicitly, and compiler threads
	 * that do not come and go (a thread that ends takes its CPU time out of the reading).
	 */
	static final List<String> SERVICE_JVM_FLAGS = List.of("-Xms256m", "-Xmx256m", "-XX:+UseG1GC",
			"-XX:+TieredCompilation", "-XX:-UseDynamicNumberOfCompilerThreads");

	static final double MODERATE_RATE = 1000;

	static final int PACED_CONNECTIONS = 16;

	static final int SATURATING_CONNECTIONS = 32;

	private static final Duration WARM_UP_CHUNK = Duration.ofSeconds(3);

	/** Chunks of each warm-up step at least, quiet or not. */
	private static final int MIN_WARM_UP_CHUNKS = 2;

	/** One slice of the saturating load on one service. */
	private static final Duration SLICE = Duration.ofSeconds(2);

	/** Below this share of a chunk's time in the compiler threads, the JIT is done. */
	private static final double QUIET_COMPILER_SHARE = 0.03;

	private static final Pattern COUNT = Pattern
		.compile("\"statistic\"\\s*:\\s*\"COUNT\"\\s*,\\s*\"value\"\\s*:\\s*([0-9.Ee+]+)");

	private final int rounds;

	private final Duration length;

	private final Duration warmUp;

	private final List<Variant> variants;

	private final Path jar;

	private final Path out;

	private final ProcessRegistry processes = new ProcessRegistry();

	private final Results results = new Results();

	private final PacedLoad moderate = new PacedLoad(MODERATE_RATE, PACED_CONNECTIONS, ROUTES);

	private final Wrk wrk;

	private final HttpClient http = HttpClient.newHttpClient();

	/** Throughput of every chunk of every warm-up, to show where it levels off. */
	private PrintWriter warmUpLog;

	/** How long each variant's warm-ups took, in seconds. */
	private final Map<Variant, List<Long>> warmUpSeconds = new java.util.EnumMap<>(Variant.class);

	private long admitted;

	private StarterBenchmark(int rounds, Duration length, Duration warmUp, List<Variant> variants, Path jar, Path out)
			throws IOException {
		this.rounds = rounds;
		this.length = length;
		this.warmUp = warmUp;
		this.variants = variants;
		this.jar = jar;
		this.out = out;
		this.wrk = new Wrk(SATURATING_CONNECTIONS, ROUTES, out, this.processes);
	}

	public static void main(String[] args) throws Exception {
		int rounds = argument(args, 0, 6, 1, 50, "rounds");
		int seconds = argument(args, 1, 8, 1, 120, "seconds");
		int warmUpSeconds = Integer.parseInt(System.getenv().getOrDefault("PATHFENCE_BENCH_WARMUP", "60"));
		List<Variant> variants = Arrays
			.stream(System.getenv().getOrDefault("PATHFENCE_BENCH_VARIANTS", "without,starter").split(","))
			.map(String::trim)
			.map(Variant::of)
			.distinct()
			.sorted()
			.toList();
		if (!variants.contains(Variant.WITHOUT) || variants.size() < 2) {
			throw new IllegalArgumentException(
					"PATHFENCE_BENCH_VARIANTS must name 'without' (the baseline) and at least one other variant");
		}
		for (Variant v : variants) {
			if (!variants.contains(v.baseline())) {
				throw new IllegalArgumentException(
						"PATHFENCE_BENCH_VARIANTS names '" + v.id + "' without its baseline '" + v.baseline().id + "'");
			}
		}
		Path jar = Paths.get(System.getProperty("bench.app.jar", "pathfence-benchmarks-app/target/bench-app.jar"));
		Path out = Paths.get(System.getProperty("bench.results", "results/bench-starter"));
		if (!Files.isRegularFile(jar)) {
			throw new IllegalStateException(jar + " is missing: run scripts/bench-starter.sh, which builds it");
		}
		Files.createDirectories(out);
		new StarterBenchmark(rounds, Duration.ofSeconds(seconds), Duration.ofSeconds(warmUpSeconds), variants, jar, out)
			.run();
		System.exit(0);
	}

	private static int argument(String[] args, int index, int fallback, int min, int max, String name) {
		int value = (args.length > index) ? Integer.parseInt(args[index]) : fallback;
		if (value < min || value > max) {
			throw new IllegalArgumentException(name + " must be between " + min + " and " + max + ", not " + value);
		}
		return value;
	}

	private void run() throws Exception {
		String moderateLabel = String.format(Locale.ROOT, "moderate %.0f/s", MODERATE_RATE);
		String saturatingLabel = "saturating";
		System.err.printf(Locale.ROOT,
				"bench: %d rounds; in each, one fresh service JVM per variant (%s), warmed up by wrk until its JIT is "
						+ "quiet (at most %d s), then "
						+ "%d s of %s on each variant at once (%d connections each, paced), and %d s saturating "
						+ "(wrk, %d connections, closed loop) on each alone, the others stopped, in slices of %d s that "
						+ "alternate between the variants%n",
				this.rounds, String.join(", ", this.variants.stream().map((v) -> v.id).toList()),
				this.warmUp.toSeconds(), this.length.toSeconds(), moderateLabel, PACED_CONNECTIONS,
				this.length.toSeconds(), SATURATING_CONNECTIONS, SLICE.toSeconds());
		System.err.println("bench: service JVM " + String.join(" ", SERVICE_JVM_FLAGS) + ", java "
				+ System.getProperty("java.version") + "; results in " + this.out);
		String loadBefore = loadAverage();
		try (PrintWriter csv = new PrintWriter(Files.newBufferedWriter(this.out.resolve("rounds.csv")));
				PrintWriter warmUps = new PrintWriter(Files.newBufferedWriter(this.out.resolve("warmup.csv")))) {
			this.warmUpLog = warmUps;
			warmUps.println("round,variant,second,connections,throughput,compiler_ms");
			csv.println("round,load,variant,throughput,p50_us,p99_us,cpu_us_per_request,requests,errors");
			for (int round = 0; round < this.rounds; round++) {
				Map<Variant, Map<Load, Measure>> measured = runRound(round);
				int number = round + 1;
				measured.forEach((variant, byLoad) -> byLoad.forEach((load, m) -> {
					this.results.add(load, variant, m);
					csv.printf(Locale.ROOT, "%d,%s,%s,%.1f,%.1f,%.1f,%.2f,%d,%d%n", number, load.id, variant.id,
							m.throughput(), m.p50Micros(), m.p99Micros(), m.cpuMicrosPerRequest(), m.requests(),
							m.errors());
				}));
				csv.flush();
			}
		}
		new Report(System.out, this.results, this.variants, moderateLabel, saturatingLabel).print();
		System.out.println();
		System.out.println("PathFence's fence admitted " + this.admitted
				+ " requests in the variant with the starter (its pathfence.path.service count)");
		System.out.println("warm-up until the JIT was quiet, median over the rounds: " + this.variants.stream()
			.map((v) -> String.format(Locale.ROOT, "%.0f s (%s)", Stats.median(
					this.warmUpSeconds.getOrDefault(v, List.of()).stream().mapToDouble(Long::doubleValue).toArray()),
					v.id))
			.collect(java.util.stream.Collectors.joining(", ")));
		System.out.println("machine load average (1 min): " + loadBefore + " before, " + loadAverage() + " after, on "
				+ Runtime.getRuntime().availableProcessors() + " cores");
	}

	/**
	 * One round: fresh services, started one after another in an order that rotates with
	 * the round; each warmed up and measured at saturation alone, in the same order; then
	 * all at once at the moderate load.
	 */
	private Map<Variant, Map<Load, Measure>> runRound(int round) throws Exception {
		List<Variant> order = rotated(this.variants, round);
		Map<Variant, AppProcess> apps = new LinkedHashMap<>();
		Map<Variant, Map<Load, Measure>> measured = new LinkedHashMap<>();
		try {
			for (Variant v : order) {
				apps.put(v, AppProcess.start(v, this.jar, SERVICE_JVM_FLAGS,
						this.out.resolve("service-round-" + (round + 1) + "-" + v.id + ".log"), this.processes));
				measured.put(v, new LinkedHashMap<>());
			}
			if (round == 0) {
				apps.values()
					.forEach((app) -> System.err.println("bench: " + app.variant.id + " filters " + app.filters));
			}
			for (Variant v : order) {
				alone(apps, v, () -> warmUp(apps.get(v), round));
			}
			saturating(apps, order).forEach((v, m) -> measured.get(v).put(Load.SATURATING, m));
			List<Measure> paced = moderate(apps, round);
			for (int i = 0; i < this.variants.size(); i++) {
				measured.get(this.variants.get(i)).put(Load.MODERATE, paced.get(i));
			}
			if (apps.containsKey(Variant.STARTER)) {
				this.admitted += admitted(apps.get(Variant.STARTER));
			}
			if (apps.containsKey(Variant.ENFORCE)) {
				checkLearned(apps.get(Variant.ENFORCE));
			}
		}
		finally {
			apps.values().forEach(AppProcess::close);
		}
		System.err.println(progress(round, measured));
		return measured;
	}

	/**
	 * The saturating load, in slices of {@link #SLICE} that alternate between the
	 * variants (forwards, then backwards), each slice on one service alone: the load of
	 * this shared machine drifts within seconds, and slices this short meet the same
	 * drift. Per variant: throughput and CPU over all its slices, latency percentiles the
	 * medians of its slices'.
	 */
	private Map<Variant, Measure> saturating(Map<Variant, AppProcess> apps, List<Variant> order) throws Exception {
		long slices = Math.max(1, (this.length.toSeconds() + SLICE.toSeconds() - 1) / SLICE.toSeconds());
		Map<Variant, List<Measure>> measured = new LinkedHashMap<>();
		for (long k = 0; k < slices; k++) {
			List<Variant> sliceOrder = new ArrayList<>(order);
			if (k % 2 == 1) {
				java.util.Collections.reverse(sliceOrder);
			}
			for (Variant v : sliceOrder) {
				AppProcess app = apps.get(v);
				alone(apps, v, () -> {
					Map<Long, Long> before = app.cpuByThread();
					Measure m = this.wrk.run(app.port, SLICE);
					measured.computeIfAbsent(v, (x) -> new ArrayList<>())
						.add(m.withCpu(AppProcess.cpuBetween(before, app.cpuByThread())));
				});
			}
		}
		Map<Variant, Measure> combined = new LinkedHashMap<>();
		measured.forEach((v, ms) -> combined.put(v, combine(ms)));
		return combined;
	}

	private static Measure combine(List<Measure> slices) {
		long requests = slices.stream().mapToLong(Measure::requests).sum();
		double seconds = slices.stream().mapToDouble((m) -> m.requests() / m.throughput()).sum();
		double cpuMicros = slices.stream().mapToDouble((m) -> m.cpuMicrosPerRequest() * m.requests()).sum();
		return new Measure(requests / seconds, Stats.median(slices.stream().mapToDouble(Measure::p50Micros).toArray()),
				Stats.median(slices.stream().mapToDouble(Measure::p99Micros).toArray()), cpuMicros / requests, requests,
				slices.stream().mapToLong(Measure::errors).sum());
	}

	/** Runs {@code work} with every other service stopped. */
	private static void alone(Map<Variant, AppProcess> apps, Variant variant, Work work) throws Exception {
		AppProcess app = apps.get(variant);
		apps.values().stream().filter((a) -> a != app).forEach(AppProcess::pause);
		try {
			work.run();
		}
		finally {
			apps.values().stream().filter((a) -> a != app).forEach(AppProcess::resume);
		}
	}

	private interface Work {

		void run() throws Exception;

	}

	/**
	 * wrk until the JIT is done with the request path: first on one connection, then on
	 * the saturating load's, each time in chunks until the service's compiler threads
	 * used less than {@value #QUIET_COMPILER_SHARE} of a chunk's time. The compilers
	 * compete with the load's threads for the two cores, and under the saturating load
	 * they take more than twice as long to finish as under one connection; the second
	 * step compiles what only concurrency reaches (contended locks, more of Tomcat's
	 * threads). Every chunk is logged, with its throughput and compiler time.
	 */
	private void warmUp(AppProcess app, int round) throws Exception {
		long started = System.nanoTime();
		warmUpUntilQuiet(app, round, 1, started);
		warmUpUntilQuiet(app, round, SATURATING_CONNECTIONS, started);
		this.warmUpSeconds.computeIfAbsent(app.variant, (v) -> new ArrayList<>())
			.add(Duration.ofNanos(System.nanoTime() - started).toSeconds());
	}

	private void warmUpUntilQuiet(AppProcess app, int round, int connections, long started) throws Exception {
		long compiled = app.compilerCpuNanos();
		for (int chunks = 1;; chunks++) {
			Measure m = this.wrk.run(app.port, WARM_UP_CHUNK, connections);
			long compiledNow = app.compilerCpuNanos();
			long compiling = compiledNow - compiled;
			compiled = compiledNow;
			long elapsed = Duration.ofNanos(System.nanoTime() - started).toSeconds();
			this.warmUpLog.printf(Locale.ROOT, "%d,%s,%d,%d,%.0f,%d%n", round + 1, app.variant.id, elapsed, connections,
					m.throughput(), compiling / 1_000_000);
			this.warmUpLog.flush();
			boolean quiet = compiling < QUIET_COMPILER_SHARE * WARM_UP_CHUNK.toNanos();
			if (quiet && chunks >= MIN_WARM_UP_CHUNKS) {
				return;
			}
			if (elapsed >= this.warmUp.toSeconds()) {
				System.err.println("bench: the JIT of " + app.variant.id + " was still compiling ("
						+ compiling / 1_000_000 + " ms in the last " + WARM_UP_CHUNK.toSeconds()
						+ " s) when the warm-up ran out after " + elapsed + " s (PATHFENCE_BENCH_WARMUP)");
				return;
			}
		}
	}

	/**
	 * Every service at once, each on its own connections, their sends interleaved: a
	 * fraction of the interval between two sends apart, in an order that rotates with the
	 * round. After a short unmeasured run, which also warms up the client.
	 */
	private List<Measure> moderate(Map<Variant, AppProcess> apps, int round) throws Exception {
		List<Integer> ports = this.variants.stream().map((v) -> apps.get(v).port).toList();
		long stagger = (long) (1e9 / MODERATE_RATE / this.variants.size());
		List<Duration> offsets = new ArrayList<>();
		for (int i = 0; i < this.variants.size(); i++) {
			offsets.add(Duration.ofNanos(stagger * ((i + round) % this.variants.size())));
		}
		this.moderate.runTogether(ports, offsets, Duration.ofSeconds(2));
		List<Map<Long, Long>> before = new ArrayList<>();
		for (Variant v : this.variants) {
			before.add(apps.get(v).cpuByThread());
		}
		List<Measure> measures = this.moderate.runTogether(ports, offsets, this.length);
		List<Measure> withCpu = new ArrayList<>();
		for (int i = 0; i < measures.size(); i++) {
			AppProcess app = apps.get(this.variants.get(i));
			withCpu.add(measures.get(i).withCpu(AppProcess.cpuBetween(before.get(i), app.cpuByThread())));
		}
		return withCpu;
	}

	/**
	 * Requests the fence admitted on each route's path, from the starter's own meter:
	 * proof that it was on the request path.
	 */
	private long admitted(AppProcess app) throws IOException, InterruptedException {
		long sum = 0;
		for (String path : List.of("orders", "catalog", "local")) {
			URI uri = URI
				.create("http://127.0.0.1:" + app.port + "/actuator/metrics/pathfence.path.service?tag=path:" + path);
			HttpResponse<String> response = this.http.send(HttpRequest.newBuilder(uri).build(),
					HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
			Matcher count = COUNT.matcher(response.body());
			if (response.statusCode() != 200 || !count.find()) {
				throw new IllegalStateException("no pathfence.path.service count for path " + path + ": "
						+ response.statusCode() + " " + response.body());
			}
			long n = (long) Double.parseDouble(count.group(1));
			if (n == 0) {
				throw new IllegalStateException("the fence admitted no request of path " + path);
			}
			sum += n;
		}
		return sum;
	}

	/**
	 * Proof that the enforce variant classified by what it learned: both routes that call
	 * a downstream are on learned paths with reservations.
	 */
	private void checkLearned(AppProcess app) throws IOException, InterruptedException {
		URI uri = URI.create("http://127.0.0.1:" + app.port + "/actuator/pathfence");
		HttpResponse<String> response = this.http.send(HttpRequest.newBuilder(uri).build(),
				HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
		String body = response.body();
		if (response.statusCode() != 200 || !body.contains("GET /orders/{id}") || !body.contains("GET /catalog/{id}")
				|| body.split("\"reserved\"\\s*:\\s*true", -1).length - 1 < 2) {
			throw new IllegalStateException(
					"the enforce variant did not learn both paths: " + response.statusCode() + " " + body);
		}
	}

	private String progress(int round, Map<Variant, Map<Load, Measure>> measured) {
		StringBuilder line = new StringBuilder(
				String.format(Locale.ROOT, "bench: round %d/%d, load %s:", round + 1, this.rounds, loadAverage()));
		for (Variant v : this.variants) {
			if (v == Variant.WITHOUT) {
				continue;
			}
			Measure without = measured.get(v.baseline()).get(Load.SATURATING);
			Measure withoutModerate = measured.get(v.baseline()).get(Load.MODERATE);
			Measure sat = measured.get(v).get(Load.SATURATING);
			Measure mod = measured.get(v).get(Load.MODERATE);
			line.append(
					String.format(Locale.ROOT, " %s saturating %.3f of %.0f/s, +%.1f µs CPU; moderate %+.0f µs median;",
							v.id, sat.throughput() / without.throughput(), without.throughput(),
							sat.cpuMicrosPerRequest() - without.cpuMicrosPerRequest(),
							mod.p50Micros() - withoutModerate.p50Micros()));
		}
		return line.toString();
	}

	private static <T> List<T> rotated(List<T> list, int by) {
		List<T> rotated = new ArrayList<>(list);
		java.util.Collections.rotate(rotated, -(by % list.size()));
		return rotated;
	}

	private static String loadAverage() {
		try {
			return Files.readString(Paths.get("/proc/loadavg")).split(" ")[0];
		}
		catch (IOException ex) {
			return "?";
		}
	}

}
