package io.pathfence.demo.whatif;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.pathfence.whatif.CallProfile;
import io.pathfence.whatif.SlowdownPlan;

/**
 * What a what-if run measured: the inputs, each repetition's baseline, and per reduction
 * and repetition the throughput with pauses, the prediction and, when validated, the
 * ground truth.
 */
final class WhatIfResult {

	private final String target;

	private final CallProfile profile;

	private final Duration cpuPerCall;

	private final double cores;

	private final Map<Integer, Measurement> baselines = new LinkedHashMap<>();

	private final Map<Integer, Measurement> pausesOfZero = new LinkedHashMap<>();

	private final List<Row> rows = new ArrayList<>();

	WhatIfResult(String target, CallProfile profile, Duration cpuPerCall, double cores) {
		this.target = target;
		this.profile = profile;
		this.cpuPerCall = cpuPerCall;
		this.cores = cores;
	}

	/**
	 * One reduction in one repetition.
	 *
	 * @param reduction the fraction of the target's CPU time per call taken away
	 * @param repetition which repetition
	 * @param batch the target's calls per round
	 * @param roundPauseMillis a round's pause per service
	 * @param withPauses the run under the pauses, window by window
	 * @param predicted the throughput predicted from it (req/s), NaN if impossible
	 * @param truth the run with the target really that much faster, window by window,
	 * null if not measured
	 */
	record Row(double reduction, int repetition, long batch, double roundPauseMillis, Measurement withPauses,
			double predicted, Measurement truth) {

		/** The ground truth's throughput (req/s), NaN if not measured. */
		double truthThroughput() {
			return (this.truth != null) ? this.truth.throughput() : Double.NaN;
		}

		/**
		 * The prediction's error against the ground truth, a fraction; NaN without one.
		 */
		double error() {
			return (this.predicted - truthThroughput()) / truthThroughput();
		}

	}

	void baseline(int repetition, Measurement run) {
		this.baselines.put(repetition, run);
	}

	/**
	 * The run under the rounds of the smallest reduction with every pause 0: the
	 * mechanism's own cost, which the baseline of the same repetition is the truth for.
	 */
	void pausesOfZero(int repetition, Measurement run) {
		this.pausesOfZero.put(repetition, run);
	}

	void slowed(int repetition, double reduction, SlowdownPlan plan, Measurement withPauses, double predicted) {
		this.rows.add(new Row(reduction, repetition, plan.batch(), plan.roundPauseNanos() / 1e6, withPauses, predicted,
				null));
	}

	void truth(int repetition, double reduction, Measurement truth) {
		for (int i = 0; i < this.rows.size(); i++) {
			Row row = this.rows.get(i);
			if (row.repetition() == repetition && row.reduction() == reduction) {
				this.rows.set(i, new Row(row.reduction(), row.repetition(), row.batch(), row.roundPauseMillis(),
						row.withPauses(), row.predicted(), truth));
			}
		}
	}

	String target() {
		return this.target;
	}

	CallProfile profile() {
		return this.profile;
	}

	Duration cpuPerCall() {
		return this.cpuPerCall;
	}

	double cores() {
		return this.cores;
	}

	/** Each repetition's baseline run, window by window. */
	Map<Integer, Measurement> baselines() {
		return this.baselines;
	}

	/** A repetition's baseline throughput (req/s). */
	double baseline(int repetition) {
		return this.baselines.get(repetition).throughput();
	}

	/** Each repetition's run under pauses of 0, window by window. */
	Map<Integer, Measurement> pausesOfZero() {
		return this.pausesOfZero;
	}

	List<Row> rows() {
		return this.rows;
	}

}
