package io.pathfence.sct.validation;

import io.pathfence.sct.ConcurrencyAnalyzer;
import io.pathfence.sct.ConcurrencyRecorder;
import io.pathfence.sct.Sample;
import io.pathfence.sct.Sct;
import io.pathfence.sct.SctConfig;
import io.pathfence.sct.SctResult;
import io.pathfence.sct.Verdict;
import java.util.ArrayList;
import java.util.List;

/**
 * The online loop the starter runs, in miniature and without its guards: run the
 * simulated service under bursty load with the current reservation for a third of a
 * window, analyse the last window of samples, apply the recommendation, repeat for a
 * fixed number of decisions.
 */
public final class OnlineTuning {

	/**
	 * Every window's result in order; the last one is a plateau unless the budget ran
	 * out.
	 */
	public record Trace(List<SctResult> results, List<Integer> limits) {

		public SctResult last() {
			return results.get(results.size() - 1);
		}

		/**
		 * Where the reservation settles: the median (the lower one of an even count) of
		 * the plateau recommendations in the second half of the run, leaving out the
		 * approach and the transient exploring steps; empty when that half has no
		 * plateau.
		 */
		public java.util.OptionalInt settled() {
			int[] plateaus = results.subList(results.size() / 2, results.size())
				.stream()
				.filter(r -> r.verdict() == Verdict.PLATEAU)
				.mapToInt(r -> r.recommended().getAsInt())
				.sorted()
				.toArray();
			return plateaus.length == 0 ? java.util.OptionalInt.empty()
					: java.util.OptionalInt.of(plateaus[(plateaus.length - 1) / 2]);
		}

		public double plateauShareOfSecondHalf() {
			List<SctResult> half = results.subList(results.size() / 2, results.size());
			return half.stream().filter(r -> r.verdict() == Verdict.PLATEAU).count() / (double) half.size();
		}

		/** Two-letter verdicts in order, for a readable failure message. */
		public List<String> verdicts() {
			return results.stream().map(r -> r.verdict().name().substring(0, 2)).toList();
		}
	}

	/**
	 * Decisions are taken more often than once a window, on a sliding window that spans
	 * the previous limits.
	 */
	public static final int DECISIONS_PER_WINDOW = 3;

	private OnlineTuning() {
	}

	public static Trace run(SimulatedServer.Shape shape, SimulatedServer.Load load, int initialLimit, int maxDecisions,
			SctConfig config, long seed) {
		ConcurrencyAnalyzer analyzer = Sct.analyzer(config);
		SimulatedServer.Session session = SimulatedServer.Session.open(shape, load, initialLimit, seed);
		ConcurrencyRecorder recorder = Sct.recorder(config, session::nowNanos);
		double periodSeconds = config.window().toNanos() / 1e9 / DECISIONS_PER_WINDOW;
		List<SctResult> results = new ArrayList<>();
		List<Integer> limits = new ArrayList<>();
		for (int d = 0; d < maxDecisions; d++) {
			limits.add(session.limit());
			session.run(periodSeconds, recorder, null);
			List<Sample> window = recorder.snapshot(session.nowNanos());
			SctResult result = analyzer.analyze(window);
			results.add(result);
			result.recommended().ifPresent(session::limit);
		}
		return new Trace(results, limits);
	}

}
