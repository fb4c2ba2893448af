package io.pathfence.demo.run;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Co-located CPU interference, the millibottleneck study's first cause: a CPU burner is
 * started on the core the stalled service is pinned to (its JVM runs under
 * {@code taskset}), at the highest priority the runner may give it ({@code nice -20} as
 * root), for the stall's length, then killed. The service's threads then get a sliver of
 * their core, as when a co-located container takes it, while its process keeps running
 * and its sockets stay open. The other services are not pinned: the scheduler moves them
 * to the other cores, as a co-located burner crowds a host.
 */
final class CpuInterference implements StallSwitch {

	/**
	 * Burners on the one core: one is enough at nice -20; more for a runner that cannot
	 * raise them.
	 */
	private static final int BURNERS = 2;

	private final int core;

	CpuInterference(int core) {
		this.core = core;
	}

	/** The command prefix that pins a service's JVM to the core the burner will take. */
	List<String> pinning() {
		return List.of("taskset", "-c", Integer.toString(this.core));
	}

	int core() {
		return this.core;
	}

	@Override
	public void stall(long lengthNanos) throws IOException, InterruptedException {
		long until = System.nanoTime() + lengthNanos;
		List<Process> burners = new ArrayList<>();
		try {
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
		}
	}

	/**
	 * The last core this process may run on, which the stalled service and the burner
	 * share.
	 */
	static int lastAllowedCore() {
		try {
			for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
				if (line.startsWith("Cpus_allowed_list:")) {
					return lastOf(line.substring("Cpus_allowed_list:".length()).trim());
				}
			}
		}
		catch (IOException | RuntimeException ex) {
			// Fall through: the last core the JVM counts.
		}
		return Runtime.getRuntime().availableProcessors() - 1;
	}

	/** The highest CPU of a list such as {@code 0-1} or {@code 0,2,4-7}. */
	static int lastOf(String cpuList) {
		int last = 0;
		for (String range : cpuList.split(",")) {
			String[] ends = range.trim().split("-");
			last = Math.max(last, Integer.parseInt(ends[ends.length - 1]));
		}
		return last;
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
