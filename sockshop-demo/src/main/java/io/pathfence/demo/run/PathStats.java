package io.pathfence.demo.run;

/**
 * One path's figures in one phase of one mode: the columns of the paper's Table 1 and a
 * few more. Times are in milliseconds and cover every request, whatever its outcome.
 *
 * @param requests requests sent
 * @param meanMillis mean response time
 * @param p50Millis median response time
 * @param p99Millis 99th percentile response time
 * @param p999Millis 99.9th percentile response time
 * @param maxMillis longest response time
 * @param ok requests answered 2xx
 * @param rejected requests answered 503
 * @param overOneSecond requests that took more than 1 s
 * @param connectionOrTimeout requests whose connection failed or that got no answer in
 * time
 * @param otherErrors requests answered with any other error
 */
public record PathStats(long requests, double meanMillis, double p50Millis, double p99Millis, double p999Millis,
		double maxMillis, int ok, int rejected, int overOneSecond, int connectionOrTimeout, int otherErrors) {
}
