package io.pathfence.demo.run;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The shape of a bursty trace: a multiplier of the burst path's base rate over one
 * period, repeated. The three shapes follow the paper's Fig. 11: a large burst (a tall
 * plateau of a couple of seconds), quick bursts (short sharp spikes) and a slow burst (a
 * long ramp up and down). Only the paths the topology marks as bursting follow it (the
 * path that meets the millibottleneck), as in the paper's experiments, where one path's
 * users vary while the others' stay constant.
 */
public enum Trace {

	/** Steady load, no burst. */
	FLAT("flat") {
		@Override
		double multiplier(double t) {
			return 1;
		}
	},

	/** 2.5 x the base rate for 2 s (with 250 ms ramps), starting 3 s into each period. */
	LARGE("large") {
		@Override
		double multiplier(double t) {
			return 1 + 1.5 * plateau(t, 3.0, 5.0, 0.25);
		}
	},

	/** 4 x the base rate for 0.5 s, at 3 s and 7 s into each period. */
	QUICK("quick") {
		@Override
		double multiplier(double t) {
			return 1 + 3 * Math.max(plateau(t, 3.0, 3.5, 0.05), plateau(t, 7.0, 7.5, 0.05));
		}
	},

	/**
	 * A ramp from the base rate to 2 x over 3 s from 2 s in, held for a second, then down
	 * over 3 s.
	 */
	SLOW("slow") {
		@Override
		double multiplier(double t) {
			return 1 + plateau(t, 5.0, 6.0, 3.0);
		}
	};

	/** The length of one period of every shape. */
	public static final double PERIOD_SECONDS = 10;

	/** No shape multiplies the base rate by more. */
	public static final double HIGHEST_MULTIPLIER = 4;

	private final String id;

	Trace(String id) {
		this.id = id;
	}

	public String id() {
		return this.id;
	}

	/**
	 * The burst path's rate multiplier {@code t} seconds into a period
	 * ({@code 0 <= t < 10}).
	 */
	abstract double multiplier(double t);

	/** The burst path's rate multiplier {@code seconds} after the trace started. */
	public double multiplierAt(double seconds) {
		double t = seconds % PERIOD_SECONDS;
		return multiplier((t < 0) ? t + PERIOD_SECONDS : t);
	}

	/**
	 * Each span of {@code [from, to)} (seconds since the run began; the trace starts at
	 * {@code from}) in which the rate is above its base: the bursts, for the plots'
	 * bands.
	 */
	public List<double[]> bursts(double from, double to) {
		List<double[]> bursts = new ArrayList<>();
		double step = 0.01;
		Double begun = null;
		for (double t = from; t < to; t += step) {
			boolean above = multiplierAt(t - from) > 1 + 1e-9;
			if (above && begun == null) {
				begun = t;
			}
			else if (!above && begun != null) {
				bursts.add(new double[] { begun, t });
				begun = null;
			}
		}
		if (begun != null) {
			bursts.add(new double[] { begun, to });
		}
		return bursts;
	}

	/**
	 * 1 between {@code from} and {@code to}, 0 outside, with linear ramps of {@code ramp}
	 * seconds outside them.
	 */
	static double plateau(double t, double from, double to, double ramp) {
		if (t >= from && t <= to) {
			return 1;
		}
		if (t < from) {
			return Math.max(0, 1 - (from - t) / ramp);
		}
		return Math.max(0, 1 - (t - to) / ramp);
	}

	public static Trace of(String id) {
		return Arrays.stream(values())
			.filter((trace) -> trace.id.equals(id))
			.findFirst()
			.orElseThrow(() -> new IllegalArgumentException(
					"Unknown trace '" + id + "'; one of " + Arrays.stream(values()).map(Trace::id).toList()));
	}

	@Override
	public String toString() {
		return this.id;
	}

}
