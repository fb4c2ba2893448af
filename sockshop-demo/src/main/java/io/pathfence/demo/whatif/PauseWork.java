package io.pathfence.demo.whatif;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.pathfence.whatif.agent.PauseResult;
import io.pathfence.whatif.rounds.Pauser;

/**
 * How far a pause is from a real stop: the work each paused service did while its pauses
 * were on, against the rate it worked at while it ran, over one run under pauses: from
 * {@link #start} to {@link #finish}, which takes in the run's settle as well as its
 * measured time, the rounds going on in both. A pause of the agent stops the whole
 * process; a pause of the filter only holds admission, so the calls already admitted run
 * on, with their CPU and their own downstream calls.
 * <p>
 * Reads around the pauser would time the pause badly: on the shared core the thread that
 * reads waits its turn after the pause ends, and the window takes in running time. So a
 * probe reads the service's totals ({@link ProcessWork}) twice inside each pause, at a
 * quarter and at 85 % of it, and the two reads count only when both fall inside the pause
 * as its pauser reports it ({@link PauseResult#atNanos()} to
 * {@code atNanos + stoppedNanos}). CPU time comes in clock ticks, coarse for one pause;
 * the sums over a run's hundreds of pauses are what is reported. The rate while running
 * is the rest of the run's work over the rest of its time, the pauses' share taken out at
 * the probes' rate.
 */
final class PauseWork {

	static final String CSV = "pause-work.csv";

	/** Shorter pauses are not probed: two reads would not fit in them. */
	static final long MIN_PROBED_NANOS = 4_000_000;

	/** The CSV's columns, each with how a service's line writes it. */
	private static final List<Column> COLUMNS = List.of(column("mechanism", "%s", Line::mechanism),
			column("reduction", "%.3f", Line::reduction), column("repetition", "%d", Line::repetition),
			column("service", "%s", Line::service), column("settle_and_run_s", "%.3f", (line) -> line.runNanos() / 1e9),
			column("paused_s", "%.3f", (line) -> line.pausedNanos() / 1e9), column("pauses", "%d", Line::pauses),
			column("probed_pauses", "%d", Line::probes), column("probed_s", "%.3f", (line) -> line.probedNanos() / 1e9),
			column("cpu_probed_ms", "%.1f", (line) -> line.probed().cpuNanos() / 1e6),
			column("io_bytes_probed", "%d", (line) -> line.probed().ioBytes()),
			column("cpu_total_ms", "%.1f", (line) -> line.total().cpuNanos() / 1e6),
			column("io_bytes_total", "%d", (line) -> line.total().ioBytes()),
			column("cpu_ratio", "%.4f", Line::cpuRatio), column("io_bytes_ratio", "%.4f", Line::bytesRatio));

	static final String HEADER = COLUMNS.stream().map(Column::name).collect(Collectors.joining(","));

	private static final ExecutorService PROBES = Executors.newCachedThreadPool((task) -> {
		Thread thread = new Thread(task, "pause-probe");
		thread.setDaemon(true);
		return thread;
	});

	private final Map<String, Measured> services = new LinkedHashMap<>();

	private final Map<String, ProcessWork> atStart = new LinkedHashMap<>();

	private long startedNanos;

	/**
	 * Measures the pauses of a service through {@code pauser}.
	 * @return the pauser to give the coordinator
	 */
	Pauser measured(String service, long pid, Pauser pauser) {
		Measured measured = new Measured(pid, pauser);
		this.services.put(service, measured);
		return measured;
	}

	/** The run starts: every service's totals now. */
	void start() throws IOException {
		for (Map.Entry<String, Measured> service : this.services.entrySet()) {
			this.atStart.put(service.getKey(), ProcessWork.of(service.getValue().pid));
		}
		this.startedNanos = System.nanoTime();
	}

	/**
	 * The run has ended and its pauses with it: one line per service, printed and
	 * appended to the results' {@value #CSV}.
	 */
	List<String> finish(String mechanism, double reduction, int repetition, Path results, PrintStream out)
			throws IOException {
		long runNanos = System.nanoTime() - this.startedNanos;
		List<String> lines = new ArrayList<>();
		for (Map.Entry<String, Measured> entry : this.services.entrySet()) {
			Measured service = entry.getValue();
			ProcessWork total = ProcessWork.of(service.pid).minus(this.atStart.get(entry.getKey()));
			ProcessWork probed;
			long probedNanos;
			long pausedNanos;
			long pauses;
			long probes;
			synchronized (service) {
				probed = service.probed;
				probedNanos = service.probedNanos;
				pausedNanos = service.pausedNanos;
				pauses = service.pauses;
				probes = service.probes;
			}
			double cpuRatio = ratio(probed.cpuNanos(), probedNanos, total.cpuNanos(), pausedNanos, runNanos);
			double bytesRatio = ratio(probed.ioBytes(), probedNanos, total.ioBytes(), pausedNanos, runNanos);
			out.printf(Locale.ROOT,
					"    %s paused %.1f s of %.1f s (%d of %d pauses probed, %.1f s): CPU %.0f ms and %d bytes of I/O "
							+ "in the probes, %.0f %% and %.0f %% of its rates while running%n",
					entry.getKey(), pausedNanos / 1e9, runNanos / 1e9, probes, pauses, probedNanos / 1e9,
					probed.cpuNanos() / 1e6, probed.ioBytes(), cpuRatio * 100, bytesRatio * 100);
			Line line = new Line(mechanism, reduction, repetition, entry.getKey(), runNanos, pausedNanos, pauses,
					probes, probedNanos, probed, total, cpuRatio, bytesRatio);
			lines.add(COLUMNS.stream().map((column) -> column.value().apply(line)).collect(Collectors.joining(",")));
		}
		Path csv = results.resolve(CSV);
		if (!Files.exists(csv)) {
			Files.writeString(csv, HEADER + "\n");
		}
		Files.write(csv, lines, StandardOpenOption.APPEND);
		return lines;
	}

	/**
	 * The rate in the probes over the rate while running: 0 for a real stop, 1 for a
	 * pause that stopped nothing; NaN without both.
	 * @param probed the work in the probes
	 * @param probedNanos the probes' time
	 * @param total the run's work
	 * @param pausedNanos the pauses' time
	 * @param runNanos the run's time
	 */
	static double ratio(long probed, long probedNanos, long total, long pausedNanos, long runNanos) {
		long runningNanos = runNanos - pausedNanos;
		if (probedNanos <= 0 || runningNanos <= 0) {
			return Double.NaN;
		}
		double pausedRate = (double) probed / probedNanos;
		double running = total - pausedRate * pausedNanos;
		if (running <= 0) {
			return Double.NaN;
		}
		return pausedRate / (running / runningNanos);
	}

	/** Two reads of a service's totals, each between the two times taken around it. */
	private record Probe(long firstFrom, long firstTo, long secondFrom, long secondTo, ProcessWork work) {

		boolean inside(PauseResult pause) {
			return this.firstFrom >= pause.atNanos() && this.secondTo <= pause.atNanos() + pause.stoppedNanos();
		}

		long nanos() {
			return (this.secondFrom + this.secondTo) / 2 - (this.firstFrom + this.firstTo) / 2;
		}

	}

	private static final class Measured implements Pauser {

		private final long pid;

		private final Pauser pauser;

		// Guarded by this.
		private ProcessWork probed = ProcessWork.NONE;

		private long probedNanos;

		private long pausedNanos;

		private long pauses;

		private long probes;

		Measured(long pid, Pauser pauser) {
			this.pid = pid;
			this.pauser = pauser;
		}

		@Override
		public PauseResult pause(long round, long nanos) throws IOException {
			long from = System.nanoTime();
			Future<Probe> probe = (nanos >= MIN_PROBED_NANOS) ? PROBES.submit(() -> probe(from, nanos)) : null;
			PauseResult result;
			try {
				result = this.pauser.pause(round, nanos);
			}
			catch (IOException | RuntimeException ex) {
				if (probe != null) {
					probe.cancel(true);
				}
				throw ex;
			}
			Probe read = (probe != null) ? read(probe) : null;
			synchronized (this) {
				this.pauses++;
				this.pausedNanos += result.stoppedNanos();
				if (read != null && read.inside(result)) {
					this.probes++;
					this.probed = this.probed.plus(read.work());
					this.probedNanos += read.nanos();
				}
			}
			return result;
		}

		private Probe probe(long from, long nanos) throws IOException {
			parkUntil(from + nanos / 4);
			long firstFrom = System.nanoTime();
			ProcessWork first = ProcessWork.of(this.pid);
			long firstTo = System.nanoTime();
			parkUntil(from + nanos * 85 / 100);
			long secondFrom = System.nanoTime();
			ProcessWork second = ProcessWork.of(this.pid);
			return new Probe(firstFrom, firstTo, secondFrom, System.nanoTime(), second.minus(first));
		}

		/**
		 * The probe's reads if it has made them by the time the pause is over, else none:
		 * waiting for a probe the shared core has not run yet would delay the service's
		 * next round, and a probe that failed (the process gone) must not void a pause
		 * that was done. Either counts as a pause not probed.
		 */
		private static Probe read(Future<Probe> probe) {
			if (!probe.isDone()) {
				probe.cancel(true);
				return null;
			}
			try {
				return probe.get();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return null;
			}
			catch (ExecutionException | CancellationException ex) {
				return null;
			}
		}

		private static void parkUntil(long deadline) {
			for (long left = deadline - System.nanoTime(); left > 0
					&& !Thread.currentThread().isInterrupted(); left = deadline - System.nanoTime()) {
				LockSupport.parkNanos(left);
			}
		}

	}

	private static Column column(String name, String format, Function<Line, Object> value) {
		return new Column(name, (line) -> String.format(Locale.ROOT, format, value.apply(line)));
	}

	/** A column of the CSV: its name, and its cell in a service's line. */
	private record Column(String name, Function<Line, String> value) {
	}

	/** What a service's line says. */
	private record Line(String mechanism, double reduction, int repetition, String service, long runNanos,
			long pausedNanos, long pauses, long probes, long probedNanos, ProcessWork probed, ProcessWork total,
			double cpuRatio, double bytesRatio) {
	}

}
