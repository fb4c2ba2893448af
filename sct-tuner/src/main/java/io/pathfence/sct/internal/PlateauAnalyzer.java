package io.pathfence.sct.internal;

import io.pathfence.sct.ConcurrencyAnalyzer;
import io.pathfence.sct.LevelStats;
import io.pathfence.sct.Sample;
import io.pathfence.sct.SctConfig;
import io.pathfence.sct.SctMetrics;
import io.pathfence.sct.SctResult;
import io.pathfence.sct.Verdict;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.TreeMap;

/**
 * The SCT analysis of one window: group the samples by concurrency level, find the
 * throughput peak, and take the contiguous run of levels around it whose throughput is
 * not below the peak.
 *
 * <ol>
 * <li>Each sample goes to level {@code n = w * round(Q_i / w)} (w = level width, default
 * 1); level 0 (an idle path) is ignored. Walking up from the lowest level, consecutive
 * levels are merged into one group until it holds at least {@code minSamplesPerLevel}
 * samples; the group stands at the sample-weighted mean of its levels, rounded to the
 * width. (Transitions between a light and a pinned load leave many sparse levels;
 * dropping them would let a plateau bridge levels that were never measured.) Every group
 * but a last short one <em>qualifies</em>. With fewer than {@code minLevels} qualified
 * levels the verdict is {@link Verdict#INSUFFICIENT_DATA}, unless requests wait at the
 * highest qualified level h (mean waiting at least {@code waitingThreshold}): a
 * reservation that binds pins the concurrency to a level or two, so the verdict is then
 * {@link Verdict#EXPLORE} one step (step 6) up from h if h has the peak throughput (step
 * 3) and the lowest level is significantly below it (step 4), down from the lowest level
 * if that one has the peak or is within the noise of it, and down from h if h is the only
 * level (up if h is 1, as nothing lies below).</li>
 * <li>Per level: mean throughput TP_n, its standard error SE_n = s_n / sqrt(k_n), and the
 * mean response time RT_n = Σ TP_i·RT_i / Σ TP_i (the mean over the requests that
 * completed).</li>
 * <li>Peak level m = the qualified level with the largest TP_n (the lowest such level on
 * a tie).</li>
 * <li>Level n is <em>on the plateau</em> unless its shortfall is both significant and
 * relevant: <pre>  TP_m − TP_n ≤ max( tolerance · TP_m ,  z · sqrt(SE_n² + SE_m²) )</pre>
 * (one-sided Welch-type z test at z = 1.645, 95 %, with a 3 % tolerance by default).</li>
 * <li>Q_lower = the smallest qualified level such that it and every qualified level
 * between it and m are on the plateau. Q_upper = the largest qualified level such that
 * every qualified level from Q_lower up to it is on the plateau and, above Q_lower, has
 * RT_n ≤ the response-time limit. The plateau throughput is the mean TP_i of the samples
 * on the levels in [Q_lower, Q_upper].</li>
 * <li>If Q_lower is the highest qualified level h, throughput is still rising: when the
 * mean waiting at h is at least {@code waitingThreshold} the verdict is
 * {@link Verdict#EXPLORE} with the recommendation
 * {@code h + min(maxStep, max(1, ceil(h · exploreFraction)))}, else
 * {@link Verdict#NO_PLATEAU}. The same {@link Verdict#EXPLORE} when Q_lower is below h
 * but the peak is h, requests wait there, no response time stopped Q_upper, and the rise
 * from Q_lower to h is significant and at least half the proportional one,
 * {@code TP_h − TP_lower ≥ 0.5 · TP_lower · (h − Q_lower) / Q_lower}: the reservation
 * cuts the curve before its plateau. Otherwise the verdict is {@link Verdict#PLATEAU} and
 * the recommendation is Q_lower.</li>
 * </ol>
 */
public final class PlateauAnalyzer implements ConcurrencyAnalyzer {

	private final SctConfig config;

	private final SctMetrics metrics;

	public PlateauAnalyzer(SctConfig config, SctMetrics metrics) {
		this.config = Objects.requireNonNull(config, "config");
		this.metrics = Objects.requireNonNull(metrics, "metrics");
	}

	@Override
	public SctResult analyze(List<Sample> window) {
		SctResult result = decide(window);
		metrics.analyzed(result);
		return result;
	}

	private SctResult decide(List<Sample> window) {
		int width = config.levelWidth();
		TreeMap<Integer, Accumulator> raw = new TreeMap<>();
		for (Sample s : window) {
			int level = (int) Math.min(Integer.MAX_VALUE, width * Math.round(s.concurrency() / width));
			if (level > 0) {
				raw.computeIfAbsent(level, l -> new Accumulator(l)).add(s);
			}
		}
		TreeMap<Integer, Accumulator> byLevel = new TreeMap<>();
		List<Integer> qualified = new ArrayList<>();
		Accumulator group = null;
		for (Accumulator level : raw.values()) {
			if (group == null) {
				group = level;
			}
			else {
				group.merge(level);
			}
			if (group.count >= config.minSamplesPerLevel()) {
				int key = group.representativeLevel(width);
				byLevel.put(key, group);
				qualified.add(key);
				group = null;
			}
		}
		if (group != null) {
			byLevel.put(group.representativeLevel(width), group);
		}
		if (qualified.isEmpty()) {
			return insufficient(window, byLevel, qualified);
		}
		int peak = qualified.get(0);
		for (Integer level : qualified) {
			if (byLevel.get(level).meanThroughput() > byLevel.get(peak).meanThroughput()) {
				peak = level;
			}
		}
		Accumulator top = byLevel.get(peak);
		int highest = qualified.get(qualified.size() - 1);
		if (qualified.size() < config.minLevels()) {
			return probe(window, byLevel, qualified, peak);
		}

		int peakIndex = qualified.indexOf(peak);
		int lowerIndex = peakIndex;
		while (lowerIndex > 0 && onPlateau(byLevel.get(qualified.get(lowerIndex - 1)), top)) {
			lowerIndex--;
		}
		int upperIndex = lowerIndex;
		boolean stoppedByResponseTime = false;
		while (upperIndex + 1 < qualified.size()) {
			Accumulator next = byLevel.get(qualified.get(upperIndex + 1));
			if (!onPlateau(next, top)) {
				break;
			}
			if (next.meanResponseTimeMillis() > config.responseTimeLimitMillis()) {
				stoppedByResponseTime = true;
				break;
			}
			upperIndex++;
		}
		int qLower = qualified.get(lowerIndex);
		int qUpper = qualified.get(upperIndex);
		Accumulator plateau = new Accumulator(qLower);
		for (int i = lowerIndex; i <= upperIndex; i++) {
			plateau.merge(byLevel.get(qualified.get(i)));
		}
		double plateauThroughput = plateau.meanThroughput();
		List<LevelStats> levels = stats(byLevel, qualified, top);

		Accumulator atHighest = byLevel.get(highest);
		double waiting = atHighest.meanWaiting();
		Accumulator atLower = byLevel.get(qLower);
		// Not past a level whose response time already broke the limit: that bound holds
		// whatever throughput does.
		if (qLower < highest && peak == highest && !stoppedByResponseTime && waiting >= config.waitingThreshold()
				&& stillProportional(atLower, qLower, atHighest, highest)) {
			// The reservation binds at the peak, so the peak seen is not the curve's: the
			// tolerance, measured from
			// it, would put Q_lower a few percent lower every window and ratchet the
			// reservation down.
			int step = exploreStep(highest);
			String reason = String.format(Locale.ROOT,
					"throughput at the highest observed level %d (%.1f/s) is significantly above level %d"
							+ " (%.1f/s), rising about in proportion to concurrency, while %.2f requests wait on"
							+ " average: the reservation cuts the curve before its plateau; exploring %d",
					highest, atHighest.meanThroughput(), qLower, atLower.meanThroughput(), waiting, highest + step);
			return new SctResult(Verdict.EXPLORE, OptionalInt.of(qLower), OptionalInt.of(qUpper),
					OptionalInt.of(highest + step), OptionalDouble.of(plateauThroughput), reason, window.size(),
					levels);
		}
		if (qLower == highest) {
			if (waiting >= config.waitingThreshold()) {
				int step = exploreStep(highest);
				String reason = String.format(Locale.ROOT,
						"throughput still rises at the highest observed level %d (%.1f/s) while %.2f requests wait"
								+ " on average; exploring %d",
						highest, atHighest.meanThroughput(), waiting, highest + step);
				return new SctResult(Verdict.EXPLORE, OptionalInt.of(qLower), OptionalInt.of(qUpper),
						OptionalInt.of(highest + step), OptionalDouble.of(plateauThroughput), reason, window.size(),
						levels);
			}
			String reason = String.format(Locale.ROOT,
					"throughput still rises at the highest observed level %d (%.1f/s) and requests waited only"
							+ " %.2f on average: the load has not reached the knee",
					highest, atHighest.meanThroughput(), waiting);
			return new SctResult(Verdict.NO_PLATEAU, OptionalInt.of(qLower), OptionalInt.of(qUpper),
					OptionalInt.empty(), OptionalDouble.of(plateauThroughput), reason, window.size(), levels);
		}
		String upperEnd;
		if (stoppedByResponseTime) {
			upperEnd = String.format(Locale.ROOT, "the response time passes %.1f ms above it",
					config.responseTimeLimitMillis());
		}
		else if (upperIndex + 1 < qualified.size()) {
			upperEnd = "throughput falls above it";
		}
		else {
			upperEnd = "it is the highest observed level";
		}
		String reason = String.format(Locale.ROOT,
				"throughput plateau of %.1f/s from level %d to %d (peak %.1f/s at %d); Q_upper=%d because %s",
				plateauThroughput, qLower, qUpper, top.meanThroughput(), peak, qUpper, upperEnd);
		return new SctResult(Verdict.PLATEAU, OptionalInt.of(qLower), OptionalInt.of(qUpper), OptionalInt.of(qLower),
				OptionalDouble.of(plateauThroughput), reason, window.size(), levels);
	}

	/**
	 * Too few levels to place a plateau. A reservation that binds pins the concurrency to
	 * a level or two, so waiting for more levels would freeze the tuner: when requests
	 * wait at the highest level, step once towards where throughput looks higher, or down
	 * from a single pinned level (less contention, and the next window, which still holds
	 * this one's samples, compares the two); up from a single level of 1, the least there
	 * is.
	 */
	private SctResult probe(List<Sample> window, TreeMap<Integer, Accumulator> byLevel, List<Integer> qualified,
			int peak) {
		int lowest = qualified.get(0);
		int highest = qualified.get(qualified.size() - 1);
		Accumulator atHighest = byLevel.get(highest);
		if (atHighest.meanWaiting() < config.waitingThreshold()) {
			return insufficient(window, byLevel, qualified);
		}
		int next;
		String why;
		Accumulator top = byLevel.get(peak);
		if (qualified.size() == 1 && highest > 1) {
			next = Math.max(1, highest - exploreStep(highest));
			why = "the concurrency is pinned at " + highest;
		}
		else if (qualified.size() == 1) {
			// Nothing lies below one permit, so a step down would recommend the level
			// itself and the path would
			// stay pinned forever: the only step that shows anything is up.
			next = highest + exploreStep(highest);
			why = "the concurrency is pinned at " + highest + ", where no step down is left";
		}
		else if (peak == highest && !onPlateau(byLevel.get(lowest), top)) {
			next = highest + exploreStep(highest);
			why = "throughput is significantly highest at the highest level, " + highest;
		}
		else if (peak == highest && lowest > 1) {
			// A rise within the noise is no rise: the same throughput with less
			// concurrency is the better
			// reservation, so look below the lowest level for Q_lower rather than above
			// for more of the same.
			next = Math.max(1, lowest - exploreStep(lowest));
			why = "throughput at " + lowest + " is within the noise of the highest level's";
		}
		else if (peak == lowest) {
			next = Math.max(1, lowest - exploreStep(lowest));
			why = "throughput is highest at the lowest level, " + lowest;
		}
		else {
			return insufficient(window, byLevel, qualified);
		}
		String reason = String.format(Locale.ROOT,
				"only %d concurrency level(s) with at least %d samples each; %s (%.1f/s) and %.2f requests wait"
						+ " at %d on average; exploring %d",
				qualified.size(), config.minSamplesPerLevel(), why, top.meanThroughput(), atHighest.meanWaiting(),
				highest, next);
		return new SctResult(Verdict.EXPLORE, OptionalInt.of(peak), OptionalInt.of(peak), OptionalInt.of(next),
				OptionalDouble.of(top.meanThroughput()), reason, window.size(), stats(byLevel, qualified, top));
	}

	private SctResult insufficient(List<Sample> window, TreeMap<Integer, Accumulator> byLevel,
			List<Integer> qualified) {
		String reason = String.format(Locale.ROOT,
				"only %d concurrency level(s) with at least %d samples each among %d samples; need %d levels",
				qualified.size(), config.minSamplesPerLevel(), window.size(), config.minLevels());
		return new SctResult(Verdict.INSUFFICIENT_DATA, OptionalInt.empty(), OptionalInt.empty(), OptionalInt.empty(),
				OptionalDouble.empty(), reason, window.size(), stats(byLevel, qualified, null));
	}

	private int exploreStep(int highest) {
		return (int) Math.min(config.exploreMaxStep(), Math.max(1, Math.ceil(highest * config.exploreFraction())));
	}

	/**
	 * Whether throughput from {@code lower} to {@code upper} still rises as below
	 * saturation, where it grows with concurrency (utilization law): the gain must be
	 * significant and at least half the proportional one. On a flat plateau the gain is
	 * noise, and at the knee a fraction of proportional, so neither walks the reservation
	 * up.
	 */
	private boolean stillProportional(Accumulator lower, int lowerLevel, Accumulator upper, int upperLevel) {
		double gain = upper.meanThroughput() - lower.meanThroughput();
		double noise = config.confidenceZ() * Math.sqrt(lower.squaredStandardError() + upper.squaredStandardError());
		double proportional = lower.meanThroughput() * (upperLevel - lowerLevel) / lowerLevel;
		return gain > noise && gain >= 0.5 * proportional;
	}

	private boolean onPlateau(Accumulator level, Accumulator peak) {
		double shortfall = peak.meanThroughput() - level.meanThroughput();
		double noise = config.confidenceZ() * Math.sqrt(level.squaredStandardError() + peak.squaredStandardError());
		return shortfall <= Math.max(config.tolerance() * peak.meanThroughput(), noise);
	}

	private List<LevelStats> stats(TreeMap<Integer, Accumulator> byLevel, List<Integer> qualified, Accumulator peak) {
		List<LevelStats> out = new ArrayList<>(byLevel.size());
		byLevel.forEach((level, a) -> {
			boolean isQualified = qualified.contains(level);
			out.add(new LevelStats(level, a.fromLevel, a.toLevel, a.count, a.meanThroughput(),
					Math.sqrt(a.squaredStandardError()), a.meanResponseTimeMillis(), a.meanWaiting(), isQualified,
					isQualified && peak != null && onPlateau(a, peak)));
		});
		return out;
	}

	/**
	 * Running sums of one level or group of levels; Welford's update keeps the variance
	 * accurate.
	 */
	private static final class Accumulator {

		final int fromLevel;

		int toLevel;

		double levelSum;

		int count;

		double mean;

		double m2;

		double weightedResponse;

		double throughputSum;

		double waitingSum;

		Accumulator(int level) {
			this.fromLevel = level;
			this.toLevel = level;
		}

		int representativeLevel(int width) {
			return (int) (width * Math.round(levelSum / count / width));
		}

		void add(Sample s) {
			levelSum += toLevel;
			count++;
			double delta = s.throughput() - mean;
			mean += delta / count;
			m2 += delta * (s.throughput() - mean);
			weightedResponse += s.throughput() * s.responseTimeMillis();
			throughputSum += s.throughput();
			waitingSum += s.waiting();
		}

		void merge(Accumulator o) {
			if (o.count == 0) {
				return;
			}
			toLevel = Math.max(toLevel, o.toLevel);
			levelSum += o.levelSum;
			int total = count + o.count;
			double delta = o.mean - mean;
			mean += delta * o.count / total;
			m2 += o.m2 + delta * delta * ((double) count * o.count / total);
			count = total;
			weightedResponse += o.weightedResponse;
			throughputSum += o.throughputSum;
			waitingSum += o.waitingSum;
		}

		double meanThroughput() {
			return mean;
		}

		double squaredStandardError() {
			return count < 2 ? 0.0 : m2 / (count - 1) / count;
		}

		double meanResponseTimeMillis() {
			return throughputSum == 0 ? 0.0 : weightedResponse / throughputSum;
		}

		double meanWaiting() {
			return count == 0 ? 0.0 : waitingSum / count;
		}

	}

}
