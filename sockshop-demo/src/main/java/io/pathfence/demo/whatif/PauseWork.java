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

import io.pathfence.whatif.agent.PauseResult;
import io.pathfence.whatif.rounds.Pauser;

/**
 * How far a pause is from a real stop: the work each paused service did while its pauses
 * were on, against the rate it worked at while it ran, over one measured run. A pause of
 * the agent stops the whole process, so what it shows is the control connection's round
 * trip at each end; a pause of the filter only holds admission, so the calls already
 * admitted run on, with their CPU and their own downstream calls.
 * <p>
 * Each pause's window is read around its pauser (from just before the stop, or the
 * control request, to its end), in {@code /proc} ({@link ProcessWork}): CPU time is
 * counted in clock ticks, so one window is coarse, and their sum over a run's hundreds of
 * pauses is what is reported.
 */
final class PauseWork {

	static final String CSV = "pause-work.csv";

	private static final String HEADER = "mechanism,reduction,repetition,service,run_s,paused_s,cpu_paused_ms,"
			+ "cpu_total_ms,io_bytes_paused,io_bytes_total,io_calls_paused,io_calls_total,cpu_ratio,io_bytes_ratio";

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
			ProcessWork paused;
			long pausedNanos;
			synchronized (service) {
				paused = service.paused;
				pausedNanos = service.pausedNanos;
			}
			double cpuRatio = ratio(paused.cpuNanos(), total.cpuNanos(), pausedNanos, runNanos);
			double bytesRatio = ratio(paused.ioBytes(), total.ioBytes(), pausedNanos, runNanos);
			out.printf(Locale.ROOT,
					"    %s paused %.1f s of %.1f s: CPU %.0f ms and %d bytes of I/O while paused, %.0f %% and "
							+ "%.0f %% of its rates while running%n",
					entry.getKey(), pausedNanos / 1e9, runNanos / 1e9, paused.cpuNanos() / 1e6, paused.ioBytes(),
					cpuRatio * 100, bytesRatio * 100);
			lines.add(String.format(Locale.ROOT, "%s,%.3f,%d,%s,%.3f,%.3f,%.1f,%.1f,%d,%d,%d,%d,%.4f,%.4f", mechanism,
					reduction, repetition, entry.getKey(), runNanos / 1e9, pausedNanos / 1e9, paused.cpuNanos() / 1e6,
					total.cpuNanos() / 1e6, paused.ioBytes(), total.ioBytes(), paused.ioCalls(), total.ioCalls(),
					cpuRatio, bytesRatio));
		}
		Path csv = results.resolve(CSV);
		if (!Files.exists(csv)) {
			Files.writeString(csv, HEADER + "\n");
		}
		Files.write(csv, lines, StandardOpenOption.APPEND);
		return lines;
	}

	/**
	 * The rate while paused over the rate while running: 0 for a real stop, 1 for a pause
	 * that stopped nothing; NaN without both.
	 */
	static double ratio(long paused, long total, long pausedNanos, long runNanos) {
		long runningNanos = runNanos - pausedNanos;
		if (pausedNanos <= 0 || runningNanos <= 0 || total - paused <= 0) {
			return Double.NaN;
		}
		return ((double) paused / pausedNanos) / ((double) (total - paused) / runningNanos);
	}

	private static final class Measured implements Pauser {

		private final long pid;

		private final Pauser pauser;

		// Guarded by this.
		private ProcessWork paused = ProcessWork.NONE;

		private long pausedNanos;

		Measured(long pid, Pauser pauser) {
			this.pid = pid;
			this.pauser = pauser;
		}

		@Override
		public PauseResult pause(long round, long nanos) throws IOException {
			ProcessWork before = ProcessWork.of(this.pid);
			long from = System.nanoTime();
			PauseResult result = this.pauser.pause(round, nanos);
			long to = System.nanoTime();
			ProcessWork after = ProcessWork.of(this.pid);
			synchronized (this) {
				this.paused = this.paused.plus(after.minus(before));
				this.pausedNanos += to - from;
			}
			return result;
		}

	}

}
