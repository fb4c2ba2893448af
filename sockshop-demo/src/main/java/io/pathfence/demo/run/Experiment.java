package io.pathfence.demo.run;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs an application in each mode under the same trace (the same seeded arrivals) and
 * the same millibottlenecks: a warm-up, the fault-free time, then the faulted time, on
 * services started once and switched from mode to mode.
 */
public final class Experiment {

	private final Settings settings;

	private final PrintStream out;

	public Experiment(Settings settings, PrintStream out) {
		this.settings = settings;
		this.out = out;
	}

	public List<ModeResult> run() throws IOException, InterruptedException {
		List<ModeResult> results = new ArrayList<>();
		try (Session session = new Session(this.settings, this.out)) {
			for (Mode mode : this.settings.modes()) {
				session.prepare(mode);
				results.add(session.measure(mode, this.settings.trace(), this.settings.faultFree(),
						this.settings.faulted()));
			}
		}
		return results;
	}

}
