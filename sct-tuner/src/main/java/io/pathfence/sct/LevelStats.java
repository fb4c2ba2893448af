package io.pathfence.sct;

/**
 * What the analysis saw at one concurrency level: the samples whose Q_i rounds to a level
 * in [{@code fromLevel}, {@code toLevel}] (one level unless sparse neighbours were
 * merged).
 *
 * @param level where the group stands: the sample-weighted mean of its levels, rounded to
 * the level width
 * @param fromLevel the lowest level in the group
 * @param toLevel the highest level in the group
 * @param samples how many samples fell on this level
 * @param meanThroughput mean of TP_i over those samples, per second
 * @param standardError standard error of that mean (sample standard deviation over the
 * square root of the count; 0 for a single sample)
 * @param meanResponseTimeMillis throughput-weighted mean of RT_i, i.e. the mean response
 * time of the requests that completed in those samples; 0 when none completed
 * @param meanWaiting mean of the samples' waiting counts
 * @param qualified whether the level had enough samples to take part in the decision
 * @param onPlateau whether the level's throughput is not below the peak by the configured
 * criterion (always false for a level that did not qualify)
 */
public record LevelStats(int level, int fromLevel, int toLevel, int samples, double meanThroughput,
		double standardError, double meanResponseTimeMillis, double meanWaiting, boolean qualified, boolean onPlateau) {
}
