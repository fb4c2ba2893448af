package io.pathfence.core;

import java.util.concurrent.Future;

/**
 * One task's claim on a permit of its path. A ticket is granted at once, queued, or
 * rejected; a queued ticket is later granted (its {@link GrantListener} is told) or
 * cancelled. A granted ticket holds one permit until {@link #release()}, which takes
 * effect exactly once however often it is called, so every way a task can end may call it
 * without double-counting.
 */
public final class Ticket {

	enum State {

		WAITING, GRANTED, RELEASED, CANCELLED, REJECTED

	}

	private final PathFence fence;

	final Reservation path;

	final GrantListener listener;

	final long createdNanos;

	/** Guarded by the fence's lock. */
	State state;

	/** Set before {@link PathFence#acquire} returns the ticket and never changed. */
	Admission admission;

	/**
	 * The reservation whose permit this ticket holds once granted; guarded by the fence's
	 * lock.
	 */
	Reservation owner;

	/** When the permit was granted; guarded by the fence's lock. */
	long grantedNanos;

	/** The pending queue timeout of a waiting ticket, cancelled once it is granted. */
	private volatile Future<?> timeout;

	Ticket(PathFence fence, Reservation path, GrantListener listener, long createdNanos) {
		this.fence = fence;
		this.path = path;
		this.listener = listener;
		this.createdNanos = createdNanos;
	}

	/** The path this ticket belongs to. */
	public String path() {
		return this.path.name;
	}

	/** What happened when the task arrived: the branch the caller takes. */
	public Admission admission() {
		return this.admission;
	}

	/** Whether the ticket holds a permit now. */
	public boolean isGranted() {
		return this.fence.stateOf(this) == State.GRANTED;
	}

	/** Whether the ticket waits in its path's queue. */
	public boolean isWaiting() {
		return this.fence.stateOf(this) == State.WAITING;
	}

	/** Whether the ticket was turned away because its path's queue was full. */
	public boolean isRejected() {
		return this.fence.stateOf(this) == State.REJECTED;
	}

	/**
	 * Whether the permit this ticket holds (or held) was borrowed from another
	 * reservation.
	 */
	public boolean isBorrowed() {
		return this.fence.ownerOf(this) != this.path;
	}

	/**
	 * Gives the permit back. Returns {@code true} the one time it takes effect,
	 * {@code false} when the ticket holds no permit (never granted, or already released).
	 */
	public boolean release() {
		return this.fence.release(this);
	}

	/**
	 * Takes a waiting ticket out of its queue. Returns {@code false} when it no longer
	 * waits: then it was granted in the meantime (and its listener is told, or was) or
	 * had already ended.
	 */
	public boolean cancel() {
		return this.fence.cancel(this, null);
	}

	/**
	 * Like {@link #cancel()}, and counts the ticket as rejected for
	 * {@link RejectionReason#TIMEOUT}.
	 */
	public boolean expire() {
		return this.fence.cancel(this, RejectionReason.TIMEOUT);
	}

	/**
	 * How long this ticket's path lets a task wait for a permit, in nanoseconds; 0 for no
	 * limit.
	 */
	public long queueTimeoutNanos() {
		return this.fence.queueTimeoutOf(this);
	}

	/**
	 * Keeps the {@link WaitTimer} handle of this ticket's queue timeout, for
	 * {@link #cancelTimeout()}.
	 */
	public void attachTimeout(Future<?> timeout) {
		this.timeout = timeout;
	}

	/** Cancels a pending queue timeout: a granted ticket needs none. */
	public void cancelTimeout() {
		Future<?> pending = this.timeout;
		if (pending != null) {
			this.timeout = null;
			pending.cancel(false);
		}
	}

	@Override
	public String toString() {
		return "Ticket[" + this.path.name + ", " + this.fence.stateOf(this) + "]";
	}

}
