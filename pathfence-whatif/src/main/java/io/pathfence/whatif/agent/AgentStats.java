package io.pathfence.whatif.agent;

/**
 * An agent's totals since it started.
 *
 * @param childPid the service's process id, also its process group's id
 * @param pauses the pauses done
 * @param requestedNanos all the pause time asked for
 * @param stoppedNanos all the time the service was stopped
 * @param oversleepNanos {@code stoppedNanos - requestedNanos}: what the next pause will
 * repay
 * @param lastRound the newest round paused for, 0 before the first
 */
public record AgentStats(long childPid, long pauses, long requestedNanos, long stoppedNanos, long oversleepNanos,
		long lastRound) {

}
