package io.pathfence.core;

/**
 * One share of the pool: a path's reservation, or the local one. Mutated only under the
 * fence's lock.
 * <p>
 * {@code inUse} counts this reservation's permits that are held, whether by its own tasks
 * or lent to local tasks; {@code active} counts this path's running tasks, whichever
 * reservation's permit they hold. The two differ exactly by what is lent and borrowed,
 * which is why both are kept.
 */
final class Reservation {

	final String name;

	final boolean local;

	final WaitQueue queue = new WaitQueue();

	/** Expired tickets of this reservation on their way to their waiters. */
	final ExpiryLane lane;

	int permits;

	/**
	 * Whether the path was removed from the fence: its permits still held retire as their
	 * tasks finish, and it takes no task.
	 */
	boolean removed;

	final int maxQueue;

	/** How long a ticket may wait; 0 for no limit. */
	final long queueTimeoutNanos;

	/** Permits of this reservation currently held, by its own tasks or lent. */
	int inUse;

	/** Tasks of this path currently running. */
	int active;

	/** Permits of this reservation held by local tasks (only for a path reservation). */
	int lent;

	/**
	 * Tasks of this path running on another reservation's permit (only for the local
	 * reservation).
	 */
	int borrowed;

	Reservation(PathFence fence, String name, boolean local, int permits, int maxQueue, long queueTimeoutNanos) {
		this.name = name;
		this.lane = new ExpiryLane(fence);
		this.local = local;
		this.permits = permits;
		this.maxQueue = maxQueue;
		this.queueTimeoutNanos = queueTimeoutNanos;
	}

	/**
	 * Negative after a shrink below what is in use: such permits retire as their holders
	 * finish.
	 */
	int free() {
		return this.permits - this.inUse;
	}

	PathFigures figures() {
		return new PathFigures(this.name, this.local, this.permits, this.active, this.queue.size(),
				this.local ? this.borrowed : this.lent, this.maxQueue);
	}

}
