package io.pathfence.sct;

/**
 * What the analysis saw at one concurrency level: the samples whose Q_i rounds to {@code level}.
 *
 * @param level the concurrency level (a multiple of the configured level width)
 * @param samples how many samples fell on this level
 * @param meanThroughput mean of TP_i over those samples, per second
 * @param standardError standard error of that mean (sample standard deviation over the square root of the count;
 *     0 for a single sample)
 * @param meanResponseTimeMillis throughput-weighted mean of RT_i, i.e. the mean response time of the requests that
 *     completed in those samples; 0 when none completed
 * @param meanWaiting mean of the samples' waiting counts
 * @param qualified whether the level had enough samples to take part in the decision
 * @param onPlateau whether the level's throughput is not below the peak by the configured criterion (always false
 *     for a level that did not qualify)
 */
public record LevelStats(
        int level,
        int samples,
        double meanThroughput,
        double standardError,
        double meanResponseTimeMillis,
        double meanWaiting,
        boolean qualified,
        boolean onPlateau) {
}
