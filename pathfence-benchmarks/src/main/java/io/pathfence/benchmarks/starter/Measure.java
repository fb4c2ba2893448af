package io.pathfence.benchmarks.starter;

/**
 * One variant's figures under one load in one round.
 *
 * @param throughput requests answered with 200, per second
 * @param p50Micros median latency
 * @param p99Micros 99th percentile latency
 * @param cpuMicrosPerRequest the service process's CPU time (all its threads) per
 * answered request
 * @param requests requests answered with 200
 * @param errors requests answered otherwise, or not at all
 */
record Measure(double throughput, double p50Micros, double p99Micros, double cpuMicrosPerRequest, long requests,
		long errors) {

	Measure withCpu(long cpuNanos) {
		return new Measure(this.throughput, this.p50Micros, this.p99Micros, cpuNanos / 1e3 / Math.max(1, this.requests),
				this.requests, this.errors);
	}

}
