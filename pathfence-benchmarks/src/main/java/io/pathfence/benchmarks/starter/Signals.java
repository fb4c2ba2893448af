package io.pathfence.benchmarks.starter;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Stops and resumes a process ({@code SIGSTOP} and {@code SIGCONT}), which the JDK's
 * process API cannot: the services not being measured are stopped, so that their own
 * threads (compilers, garbage collectors, timers) take nothing from the one that is.
 */
final class Signals {

	private Signals() {
	}

	static void send(long pid, String signal) {
		try {
			Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).redirectErrorStream(true)
				.start();
			String output = new String(kill.getInputStream().readAllBytes());
			if (kill.waitFor() != 0) {
				throw new IllegalStateException("kill -" + signal + " " + pid + " failed: " + output);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("interrupted while signalling " + pid, ex);
		}
	}

}
