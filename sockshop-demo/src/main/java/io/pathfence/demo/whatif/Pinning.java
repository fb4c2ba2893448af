package io.pathfence.demo.whatif;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.pathfence.whatif.profile.TargetCores;

/**
 * Where each process of a what-if run may run: the target alone on the last CPU this
 * process may use, the other services, their agents and the load generator on the rest.
 * The model takes the target's cores as its capacity, so the target must not share them;
 * the others share theirs, and the coordinated rounds stop them together.
 *
 * @param targetCpus the target's CPU list, as {@code taskset -c} takes it
 * @param otherCpus everyone else's
 */
record Pinning(String targetCpus, String otherCpus) {

	/**
	 * Picks the CPUs and pins this process (every thread) to the others' CPUs.
	 * @throws IllegalStateException saying why it cannot pin
	 */
	static Pinning pinThisProcess() {
		Path taskset = onPath("taskset");
		if (taskset == null) {
			throw new IllegalStateException("cannot pin the services: taskset (util-linux) is not on the PATH");
		}
		long self = ProcessHandle.current().pid();
		BitSet allowed = new TargetCores().affinity(self);
		if (allowed.cardinality() < 2) {
			throw new IllegalStateException("cannot pin the services: this process may use only CPU " + list(allowed)
					+ " (its affinity or cpuset), and the target needs a CPU of its own beside the" + " others'");
		}
		int last = allowed.length() - 1;
		BitSet others = (BitSet) allowed.clone();
		others.clear(last);
		Pinning pinning = new Pinning(Integer.toString(last), list(others));
		run(List.of(taskset.toString(), "-a", "-p", "-c", pinning.otherCpus, Long.toString(self)),
				"pin the load generator to CPUs " + pinning.otherCpus);
		return pinning;
	}

	/** The command prefix that runs a service on its CPUs. */
	List<String> prefix(boolean target) {
		return List.of("taskset", "-c", target ? this.targetCpus : this.otherCpus);
	}

	private static void run(List<String> command, String what) {
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
			if (!process.waitFor(10, TimeUnit.SECONDS) || process.exitValue() != 0) {
				throw new IllegalStateException(
						"cannot " + what + ": " + String.join(" ", command) + " said: " + output.replace('\n', ' '));
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException("cannot " + what + ": " + ex.getMessage(), ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("interrupted while trying to " + what, ex);
		}
	}

	private static Path onPath(String program) {
		for (String folder : System.getenv().getOrDefault("PATH", "").split(":")) {
			Path candidate = Path.of(folder.isEmpty() ? "." : folder, program);
			if (Files.isExecutable(candidate)) {
				return candidate;
			}
		}
		return null;
	}

	static String list(BitSet cpus) {
		return cpus.stream().mapToObj(Integer::toString).collect(Collectors.joining(","));
	}

}
