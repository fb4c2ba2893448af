package io.pathfence.demo.run;

/**
 * What a closed loop's measured time gave.
 *
 * @param okPerSecond requests answered 2xx per second: the throughput
 * @param answeredPerSecond requests that ended, whatever their outcome, per second
 */
public record Throughput(double okPerSecond, double answeredPerSecond) {
}
