package io.pathfence.benchmarks.starter;

import java.io.IOException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The processes the benchmark started and has not yet seen end. On any exit of the
 * benchmark, an interrupt included, they are ended too: no service or wrk outlives it.
 */
final class ProcessRegistry {

	private final Set<Process> live = ConcurrentHashMap.newKeySet();

	ProcessRegistry() {
		Runtime.getRuntime().addShutdownHook(new Thread(this::endAll, "end-benchmark-processes"));
	}

	Process start(ProcessBuilder builder) throws IOException {
		Process process = builder.start();
		this.live.add(process);
		return process;
	}

	void forget(Process process) {
		this.live.remove(process);
	}

	/** Ends one process: asks, then forces after a grace period. */
	static void end(Process process) {
		process.destroy();
		try {
			if (!process.waitFor(20, TimeUnit.SECONDS)) {
				process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			}
		}
		catch (InterruptedException ex) {
			process.destroyForcibly();
			Thread.currentThread().interrupt();
		}
	}

	private void endAll() {
		for (Process process : this.live) {
			if (process.isAlive()) {
				try {
					// A stopped process cannot act on SIGTERM until it runs again.
					Signals.send(process.pid(), "CONT");
				}
				catch (RuntimeException ex) {
					// It ended meanwhile.
				}
				end(process);
			}
		}
	}

}
