package io.pathfence.demo.run;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Co-located CPU interference, the millibottleneck study's first cause: a CPU burner is
 * started on the core the stalled service is pinned to (its JVM runs under
 * {@code taskset}), at the highest priority the runner may give it ({@code nice -20} as
 * root), for the stall's length, then killed. The service's threads then get a sliver of
 * their core, as when a co-located container takes it, while its process keeps running
 * and its sockets stay open.
 * <p>
 * For the burn, every other process of the experiment (the other services and the runner
 * with its load generator) is moved off that core, as if on hosts of their own, and let
 * back on after it: otherwise a thread of any service that happens to wake on the
 * burner's core waits there for the scheduler to move it, behind a burner it cannot
 * preempt, and the services with the most thread hand-offs per request (the event-driven
 * ones) suffer most from a stall that is not theirs.
 */
final class CpuInterference implements StallSwitch {

	/**
	 * Burners on the one core: one is enough at nice -20; a second keeps the core taken
	 * for a runner that cannot raise their priority.
	 */
	private static final int BURNERS = 2;

	private final String allowed;

	private final int core;

	private final String others;

	private final Supplier<List<Long>> otherProcesses;

	/**
	 * @param allowed the cores the experiment may use, as a CPU list ({@code 0-1})
	 * @param otherProcesses the processes to move off the burner's core for each burn
	 */
	CpuInterference(String allowed, Supplier<List<Long>> otherProcesses) {
		this.allowed = allowed;
		List<Integer> cores = cores(allowed);
		this.core = cores.get(cores.size() - 1);
		this.others = String.join(",", cores.stream().filter((c) -> c != this.core).map(String::valueOf).toList());
		this.otherProcesses = otherProcesses;
	}

	/** The command prefix that pins a service's JVM to the core the burner will take. */
	List<String> pinning() {
		return List.of("taskset", "-c", Integer.toString(this.core));
	}

	@Override
	public void stall(long lengthNanos) throws IOException, InterruptedException {
		long until = System.nanoTime() + lengthNanos;
		List<Long> moved = this.others.isEmpty() ? List.of() : this.otherProcesses.get();
		List<Process> burners = new ArrayList<>();
		try {
			for (long pid : moved) {
				pin(pid, this.others);
			}
			for (int i = 0; i < BURNERS; i++) {
				burners.add(new ProcessBuilder("taskset", "-c", Integer.toString(this.core), "nice", "-n", "-20", "sh",
						"-c", "while :; do :; done")
					.redirectErrorStream(true)
					.redirectOutput(ProcessBuilder.Redirect.DISCARD)
					.start());
			}
			Millibottlenecks.sleepUntil(until);
		}
		finally {
			for (Process burner : burners) {
				burner.destroyForcibly();
			}
			for (Process burner : burners) {
				burner.waitFor(5, TimeUnit.SECONDS);
			}
			for (long pid : moved) {
				pin(pid, this.allowed);
			}
		}
	}

	/**
	 * Sets the cores of every thread of a process; one that has ended meanwhile is no
	 * error.
	 */
	private static void pin(long pid, String cores) throws InterruptedException {
		try {
			Process taskset = new ProcessBuilder("taskset", "-a", "-p", "-c", cores, Long.toString(pid))
				.redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.DISCARD)
				.start();
			taskset.waitFor(5, TimeUnit.SECONDS);
		}
		catch (IOException ex) {
			// taskset was there when the run started; a process gone is not a fault.
		}
	}

	/** The cores this process may run on, as a CPU list such as {@code 0-1}. */
	static String allowedCores() {
		try {
			for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
				if (line.startsWith("Cpus_allowed_list:")) {
					return line.substring("Cpus_allowed_list:".length()).trim();
				}
			}
		}
		catch (IOException | RuntimeException ex) {
			// Fall through: the cores the JVM counts.
		}
		return "0-" + (Runtime.getRuntime().availableProcessors() - 1);
	}

	/** The cores of a CPU list such as {@code 0-1} or {@code 0,2,4-7}, in order. */
	static List<Integer> cores(String cpuList) {
		List<Integer> cores = new ArrayList<>();
		for (String range : cpuList.split(",")) {
			String[] ends = range.trim().split("-");
			int from = Integer.parseInt(ends[0]);
			int to = Integer.parseInt(ends[ends.length - 1]);
			for (int core = from; core <= to; core++) {
				cores.add(core);
			}
		}
		return cores;
	}

	/** Fails, saying what to install, unless {@code taskset} and {@code nice} run. */
	static void checkAvailable() {
		for (String tool : List.of("taskset", "nice")) {
			try {
				Process process = new ProcessBuilder(tool, "--version").redirectErrorStream(true)
					.redirectOutput(ProcessBuilder.Redirect.DISCARD)
					.start();
				if (!process.waitFor(5, TimeUnit.SECONDS) || process.exitValue() != 0) {
					throw new IllegalArgumentException(tool + " --version failed");
				}
			}
			catch (IOException ex) {
				throw new IllegalArgumentException(
						"CPU interference needs " + tool + " (util-linux, coreutils) on the PATH: " + ex.getMessage());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalArgumentException("interrupted while looking for " + tool);
			}
		}
	}

}
