package io.pathfence.demo.run;

import io.pathfence.demo.topology.Millibottleneck;

/**
 * The millibottleneck of a run in words, for the console and the charts' titles.
 */
final class Faults {

	private Faults() {
	}

	static String describe(Settings settings) {
		Millibottleneck m = settings.millibottleneck();
		long length = m.length().toMillis();
		long period = m.period().toSeconds();
		return switch (m.source()) {
			case STOP -> String.format("%s stopped for %d ms every %d s", m.service(), length, period);
			case INTERFERENCE ->
				String.format("a CPU burner on %s's core for %d ms every %d s", m.service(), length, period);
			case BURST -> String.format("the bursts saturate %s", m.service());
		};
	}

}
