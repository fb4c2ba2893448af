package io.pathfence.demo.whatif;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pathfence.whatif.agent.PauseResult;
import io.pathfence.whatif.rounds.Pauser;

/**
 * The work a process does during pauses, read from {@code /proc} inside each pause, on a
 * real process that spins: a pause that stops it (SIGSTOP, as the agent does) reads near
 * nothing; a pause that stops nothing (the control, as a filter's hold is to work already
 * admitted) reads about its running rate.
 */
class PauseWorkTests {

	private static final long PAUSE_MS = 200;

	@TempDir
	Path results;

	private Process spinner;

	@BeforeEach
	void spin() throws IOException {
		this.spinner = new ProcessBuilder("sh", "-c", "while :; do :; done").start();
	}

	@AfterEach
	void end() throws InterruptedException {
		signal("-CONT");
		this.spinner.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
	}

	private void signal(String signal) {
		try {
			new ProcessBuilder("kill", signal, Long.toString(this.spinner.pid())).start().waitFor(5, TimeUnit.SECONDS);
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private double cpuRatio(String mechanism, Pauser stop) throws Exception {
		PauseWork work = new PauseWork();
		Pauser pauser = work.measured("spinner", this.spinner.pid(), stop);
		work.start();
		for (int round = 1; round <= 6; round++) {
			pauser.pause(round, TimeUnit.MILLISECONDS.toNanos(PAUSE_MS));
			Thread.sleep(PAUSE_MS);
		}
		List<String> lines = work.finish(mechanism, 0.3, 1, this.results, new PrintStream(new ByteArrayOutputStream()));
		assertThat(lines).hasSize(1);
		String[] fields = lines.get(0).split(",");
		assertThat(fields[0]).isEqualTo(mechanism);
		assertThat(fields[3]).isEqualTo("spinner");
		assertThat(Double.parseDouble(fields[5])).isGreaterThanOrEqualTo(1.0);
		assertThat(Integer.parseInt(fields[7])).as("pauses probed inside").isGreaterThanOrEqualTo(4);
		return Double.parseDouble(fields[13]);
	}

	@Test
	void aStopReadsNearNoWorkWhileAPauseThatStopsNothingReadsTheRunningRate() throws Exception {
		double stopped = cpuRatio("stop", (round, nanos) -> {
			signal("-STOP");
			long at = System.nanoTime();
			try {
				Thread.sleep(TimeUnit.NANOSECONDS.toMillis(nanos));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			long stoppedNanos = System.nanoTime() - at;
			signal("-CONT");
			return new PauseResult(round, nanos, nanos, stoppedNanos, 0, at);
		});
		double notStopped = cpuRatio("hold", (round, nanos) -> {
			long at = System.nanoTime();
			try {
				Thread.sleep(TimeUnit.NANOSECONDS.toMillis(nanos));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			return new PauseResult(round, nanos, nanos, System.nanoTime() - at, 0, at);
		});

		assertThat(stopped).isLessThan(0.25);
		assertThat(notStopped).isGreaterThan(0.6);
		List<String> csv = Files.readAllLines(this.results.resolve(PauseWork.CSV));
		assertThat(csv).hasSize(3).first().asString().startsWith("mechanism,reduction,repetition,service");
		assertThat(csv).as("a cell for each column")
			.allSatisfy((line) -> assertThat(line.split(",")).hasSameSizeAs(PauseWork.HEADER.split(",")));
	}

	@Test
	void theRatioIsTheRateWhilePausedOverTheRateWhileRunning() {
		// 5 ms of CPU in 50 ms probed of a 100 ms pause, so 10 ms in it, and 90 ms in the
		// 900 ms running: the same rate.
		assertThat(PauseWork.ratio(5, 50, 100, 100, 1000)).isEqualTo(1.0);
		assertThat(PauseWork.ratio(0, 50, 100, 100, 1000)).isEqualTo(0.0);
		assertThat(PauseWork.ratio(5, 0, 100, 100, 1000)).isNaN();
	}

}
