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
 * The SCT analysis of one window: group the samples by concurrency level, find the throughput peak, and take the
 * contiguous run of levels around it whose throughput is not below the peak.
 *
 * <ol>
 *   <li>Each sample goes to level {@code n = w * round(Q_i / w)} (w = level width, default 1); level 0 (an idle
 *       path) is ignored. A level with at least {@code minSamplesPerLevel} samples <em>qualifies</em>; with fewer
 *       than {@code minLevels} qualified levels the verdict is {@link Verdict#INSUFFICIENT_DATA}.</li>
 *   <li>Per level: mean throughput TP_n, its standard error SE_n = s_n / sqrt(k_n), and the mean response time
 *       RT_n = Σ TP_i·RT_i / Σ TP_i (the mean over the requests that completed).</li>
 *   <li>Peak level m = the qualified level with the largest TP_n (the lowest such level on a tie).</li>
 *   <li>Level n is <em>on the plateau</em> unless its shortfall is both significant and relevant:
 *       <pre>  TP_m − TP_n ≤ max( tolerance · TP_m ,  z · sqrt(SE_n² + SE_m²) )</pre>
 *       (one-sided Welch-type z test at z = 1.645, 95 %, with a 3 % tolerance by default).</li>
 *   <li>Q_lower = the smallest qualified level such that it and every qualified level between it and m are on the
 *       plateau. Q_upper = the largest qualified level such that every qualified level from Q_lower up to it is on
 *       the plateau and, above Q_lower, has RT_n ≤ the response-time limit. The plateau throughput is the mean
 *       TP_i of the samples on the levels in [Q_lower, Q_upper].</li>
 *   <li>If Q_lower is the highest qualified level h, throughput is still rising: when the mean waiting at h is at
 *       least {@code waitingThreshold} the verdict is {@link Verdict#EXPLORE} with the recommendation
 *       {@code h + min(maxStep, max(1, ceil(h · exploreFraction)))}, else {@link Verdict#NO_PLATEAU}. Otherwise the
 *       verdict is {@link Verdict#PLATEAU} and the recommendation is Q_lower.</li>
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
        TreeMap<Integer, Accumulator> byLevel = new TreeMap<>();
        for (Sample s : window) {
            int level = (int) Math.min(Integer.MAX_VALUE, width * Math.round(s.concurrency() / width));
            if (level > 0) {
                byLevel.computeIfAbsent(level, l -> new Accumulator()).add(s);
            }
        }
        List<Integer> levelsInOrder = new ArrayList<>(byLevel.keySet());
        List<Integer> qualified = new ArrayList<>();
        for (Integer level : levelsInOrder) {
            if (byLevel.get(level).count >= config.minSamplesPerLevel()) {
                qualified.add(level);
            }
        }
        if (qualified.size() < config.minLevels()) {
            String reason = String.format(Locale.ROOT,
                    "only %d concurrency level(s) with at least %d samples each among %d samples; need %d levels",
                    qualified.size(), config.minSamplesPerLevel(), window.size(), config.minLevels());
            return new SctResult(Verdict.INSUFFICIENT_DATA, OptionalInt.empty(), OptionalInt.empty(),
                    OptionalInt.empty(), OptionalDouble.empty(), reason, window.size(),
                    stats(byLevel, qualified, null));
        }

        int peak = qualified.get(0);
        for (Integer level : qualified) {
            if (byLevel.get(level).meanThroughput() > byLevel.get(peak).meanThroughput()) {
                peak = level;
            }
        }
        Accumulator top = byLevel.get(peak);

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
        Accumulator plateau = new Accumulator();
        for (int i = lowerIndex; i <= upperIndex; i++) {
            plateau.merge(byLevel.get(qualified.get(i)));
        }
        double plateauThroughput = plateau.meanThroughput();
        List<LevelStats> levels = stats(byLevel, qualified, top);

        int highest = qualified.get(qualified.size() - 1);
        if (qLower == highest) {
            Accumulator atHighest = byLevel.get(highest);
            double waiting = atHighest.meanWaiting();
            if (waiting >= config.waitingThreshold()) {
                int step = (int) Math.min(config.exploreMaxStep(),
                        Math.max(1, Math.ceil(highest * config.exploreFraction())));
                String reason = String.format(Locale.ROOT,
                        "throughput still rises at the highest observed level %d (%.1f/s) while %.2f requests wait"
                                + " on average; exploring %d",
                        highest, atHighest.meanThroughput(), waiting, highest + step);
                return new SctResult(Verdict.EXPLORE, OptionalInt.of(qLower), OptionalInt.of(qUpper),
                        OptionalInt.of(highest + step), OptionalDouble.of(plateauThroughput), reason,
                        window.size(), levels);
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
        } else if (upperIndex + 1 < qualified.size()) {
            upperEnd = "throughput falls above it";
        } else {
            upperEnd = "it is the highest observed level";
        }
        String reason = String.format(Locale.ROOT,
                "throughput plateau of %.1f/s from level %d to %d (peak %.1f/s at %d); Q_upper=%d because %s",
                plateauThroughput, qLower, qUpper, top.meanThroughput(), peak, qUpper, upperEnd);
        return new SctResult(Verdict.PLATEAU, OptionalInt.of(qLower), OptionalInt.of(qUpper),
                OptionalInt.of(qLower), OptionalDouble.of(plateauThroughput), reason, window.size(), levels);
    }

    private boolean onPlateau(Accumulator level, Accumulator peak) {
        double shortfall = peak.meanThroughput() - level.meanThroughput();
        double noise = config.confidenceZ() * Math.sqrt(level.squaredStandardError() + peak.squaredStandardError());
        return shortfall <= Math.max(config.tolerance() * peak.meanThroughput(), noise);
    }

    private List<LevelStats> stats(TreeMap<Integer, Accumulator> byLevel, List<Integer> qualified,
            Accumulator peak) {
        List<LevelStats> out = new ArrayList<>(byLevel.size());
        byLevel.forEach((level, a) -> {
            boolean isQualified = qualified.contains(level);
            out.add(new LevelStats(level, a.count, a.meanThroughput(), Math.sqrt(a.squaredStandardError()),
                    a.meanResponseTimeMillis(), a.meanWaiting(), isQualified,
                    isQualified && peak != null && onPlateau(a, peak)));
        });
        return out;
    }

    /** Running sums of one level; Welford's update keeps the variance exact enough for long windows. */
    private static final class Accumulator {
        int count;
        double mean;
        double m2;
        double weightedResponse;
        double throughputSum;
        double waitingSum;

        void add(Sample s) {
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
