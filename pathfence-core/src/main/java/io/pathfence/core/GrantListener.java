package io.pathfence.core;

/**
 * Told when a waiting {@link Ticket} is granted its permit. Runs on the thread that freed
 * the permit, outside the fence's lock, so it must only hand the task on (dispatch it),
 * never run it.
 */
@FunctionalInterface
public interface GrantListener {

	void granted(Ticket ticket);

}
