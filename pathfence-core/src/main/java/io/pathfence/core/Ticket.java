package io.pathfence.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One task's claim on a permit of its path, from {@link PathFence#acquire}. Branch on
 * {@link #admission()}. A granted ticket holds one permit until {@link #release()}, which
 * takes effect exactly once however often it is called, so every way a task can end may
 * call it. A queued ticket's {@link Waiter} is told when it is granted or expires, unless
 * it is {@link #cancel() cancelled} first.
 */
public final class Ticket {

	enum State {

		WAITING, GRANTED, RELEASED, CANCELLED, EXPIRED, REJECTED

	}

	/** The acquiring thread has not yet told the listeners that the ticket queued. */
	private static final int QUEUED_UNREPORTED = 0;

	/** The listeners have heard that the ticket queued. */
	private static final int QUEUED_REPORTED = 1;

	/**
	 * The wait ended before the acquiring thread reported it: that thread tells of the
	 * end too, after the start.
	 */
	private static final int END_LEFT_TO_ACQUIRER = 2;

	private static final VarHandle REPORT;

	static {
		try {
			REPORT = MethodHandles.lookup().findVarHandle(Ticket.class, "report", int.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	final PathFence fence;

	final Reservation path;

	final Waiter waiter;

	/**
	 * The listeners registered when the ticket was acquired; all its events go to them.
	 */
	final Listeners listeners;

	/** When the ticket was acquired; 0 when nobody times it. */
	final long createdNanos;

	/** Set before {@link PathFence#acquire} returns the ticket and never changed. */
	Admission admission;

	/** Guarded by the fence's lock. */
	State state;

	/**
	 * The reservation whose permit this ticket holds once granted; guarded by the fence's
	 * lock.
	 */
	Reservation owner;

	/** When the wait ended, by a grant or an expiry; guarded by the fence's lock. */
	long waitEndedNanos;

	/**
	 * When a waiting ticket expires, on the clock of the fence; guarded by the fence's
	 * lock.
	 */
	long deadline;

	/**
	 * Neighbours in the reservation's wait queue, then in its expiry lane; guarded by the
	 * fence's lock.
	 */
	Ticket previous;

	Ticket next;

	/** Who tells the listeners how a queued ticket's wait ended, by {@link #REPORT}. */
	@SuppressWarnings("unused")
	private volatile int report;

	Ticket(PathFence fence, Reservation path, Waiter waiter, Listeners listeners, long createdNanos) {
		this.fence = fence;
		this.path = path;
		this.waiter = waiter;
		this.listeners = listeners;
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

	/**
	 * Gives the permit back. Returns {@code true} the one time it takes effect,
	 * {@code false} when the ticket holds no permit (never granted, or already released).
	 */
	public boolean release() {
		return this.fence.release(this);
	}

	/**
	 * Takes a waiting ticket out of its queue; its waiter hears nothing more. Returns
	 * {@code false} when it no longer waits: it was granted or expired in the meantime
	 * (and its waiter is told, or was), or had already ended.
	 */
	public boolean cancel() {
		return this.fence.cancel(this);
	}

	/**
	 * Called by the acquiring thread once the listeners heard that the ticket queued.
	 * Returns {@code true} when the wait has ended meanwhile and the news is left to this
	 * thread.
	 */
	boolean queuedReported() {
		return !this.listeners.isEmpty() && !REPORT.compareAndSet(this, QUEUED_UNREPORTED, QUEUED_REPORTED);
	}

	/**
	 * Called by whoever ended the wait before telling of it. Returns {@code false} when
	 * the acquiring thread has not yet told the listeners that the ticket queued: it will
	 * tell of the end itself, right after.
	 */
	boolean mayTellOfEnd() {
		return this.listeners.isEmpty() || (int) REPORT.getVolatile(this) != QUEUED_UNREPORTED
				|| !REPORT.compareAndSet(this, QUEUED_UNREPORTED, END_LEFT_TO_ACQUIRER);
	}

	@Override
	public String toString() {
		return "Ticket[" + this.path.name + ", " + this.admission + "]";
	}

}
