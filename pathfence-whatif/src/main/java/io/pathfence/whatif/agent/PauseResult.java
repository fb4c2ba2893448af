package io.pathfence.whatif.agent;

/**
 * One pause as the agent reports it, once the service runs again.
 *
 * @param round the round it was paid for
 * @param requestedNanos the pause asked for
 * @param targetNanos what the agent aimed for: the request less the oversleep it carried
 * over from earlier pauses, at least zero
 * @param stoppedNanos how long the service was stopped, from the stop signal sent to the
 * continue signal sent
 * @param oversleepNanos all the time stopped so far less all the time asked for, after
 * this pause: what the next pause will repay
 * @param atNanos when the stop signal was sent, on the monotonic clock
 * ({@link System#nanoTime()} on Linux)
 */
public record PauseResult(long round, long requestedNanos, long targetNanos, long stoppedNanos, long oversleepNanos,
		long atNanos) {

}
