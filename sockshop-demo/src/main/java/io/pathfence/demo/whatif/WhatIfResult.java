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

	private final Map<Integer, Double> baselines = new LinkedHashMap<>();

	private final Map<Integer, Double> pausesOfZero = new LinkedHashMap<>();

	private final Map<Integer, Measurement> baselineRuns = new LinkedHashMap<>();

	private final Map<Integer, Measurement> pausesOfZeroRuns = new LinkedHashMap<>();

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
	 * @param withPauses the throughput measured under the pauses (req/s)
	 * @param predicted the throughput predicted from it (req/s), NaN if impossible
	 * @param truth the throughput with the target really that much faster, NaN if not
	 * measured
	 * @param withPausesRun the run under pauses, window by window
	 * @param truthRun the ground truth's run, window by window, null if not measured
	 */
	record Row(double reduction, int repetition, long batch, double roundPauseMillis, double withPauses,
			double predicted, double truth, Measurement withPausesRun, Measurement truthRun) {

		/**
		 * The prediction's error against the ground truth, a fraction; NaN without one.
		 */
		double error() {
			return (this.predicted - this.truth) / this.truth;
		}

	}

	void baseline(int repetition, Measurement run) {
		this.baselines.put(repetition, run.throughput());
		this.baselineRuns.put(repetition, run);
	}

	/**
	 * The throughput under the rounds of the smallest reduction with every pause 0: the
	 * mechanism's own cost, which the baseline of the same repetition is the truth for.
	 */
	void pausesOfZero(int repetition, Measurement run) {
		this.pausesOfZero.put(repetition, run.throughput());
		this.pausesOfZeroRuns.put(repetition, run);
	}

	void slowed(int repetition, double reduction, SlowdownPlan plan, Measurement withPauses, double predicted) {
		this.rows.add(new Row(reduction, repetition, plan.batch(), plan.roundPauseNanos() / 1e6,
				withPauses.throughput(), predicted, Double.NaN, withPauses, null));
	}

	void truth(int repetition, double reduction, Measurement truth) {
		for (int i = 0; i < this.rows.size(); i++) {
			Row row = this.rows.get(i);
			if (row.repetition() == repetition && row.reduction() == reduction) {
				this.rows.set(i, new Row(row.reduction(), row.repetition(), row.batch(), row.roundPauseMillis(),
						row.withPauses(), row.predicted(), truth.throughput(), row.withPausesRun(), truth));
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

	Map<Integer, Double> baselines() {
		return this.baselines;
	}

	Map<Integer, Double> pausesOfZero() {
		return this.pausesOfZero;
	}

	/** Each repetition's baseline run, window by window. */
	Map<Integer, Measurement> baselineRuns() {
		return this.baselineRuns;
	}

	/** Each repetition's run under pauses of 0, window by window. */
	Map<Integer, Measurement> pausesOfZeroRuns() {
		return this.pausesOfZeroRuns;
	}

	List<Row> rows() {
		return this.rows;
	}

}
