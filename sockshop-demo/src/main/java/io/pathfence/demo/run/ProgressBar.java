package io.pathfence.demo.run;

import java.io.PrintStream;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A progress bar on the console, redrawn in place every quarter second on a terminal, or
 * printed as a line every five seconds when the output is a file or a build log.
 */
final class ProgressBar implements AutoCloseable {

	private static final int WIDTH = 30;

	private final PrintStream out;

	private final boolean terminal = System.console() != null;

	private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor((task) -> {
		Thread thread = new Thread(task, "progress-bar");
		thread.setDaemon(true);
		return thread;
	});

	private final String label;

	private final long startNanos = System.nanoTime();

	private final double totalSeconds;

	private final Supplier<String> status;

	ProgressBar(PrintStream out, String label, double totalSeconds, Supplier<String> status) {
		this.out = out;
		this.label = label;
		this.totalSeconds = totalSeconds;
		this.status = status;
		long every = this.terminal ? 250 : 5000;
		this.ticker.scheduleAtFixedRate(this::draw, every, every, TimeUnit.MILLISECONDS);
	}

	private void draw() {
		double elapsed = Math.min((System.nanoTime() - this.startNanos) / 1e9, this.totalSeconds);
		int filled = (int) Math.round(WIDTH * elapsed / this.totalSeconds);
		String line = String.format("%-28s [%s%s] %3.0f/%.0f s  %s", this.label, "#".repeat(filled),
				".".repeat(WIDTH - filled), elapsed, this.totalSeconds, this.status.get());
		if (this.terminal) {
			this.out.print("\r" + line + "   ");
		}
		else {
			this.out.println(line);
		}
		this.out.flush();
	}

	@Override
	public void close() {
		this.ticker.shutdownNow();
		draw();
		if (this.terminal) {
			this.out.println();
		}
	}

}
