package io.pathfence.core;

/**
 * A task waiting in its path's queue, told how the wait ends. For a ticket that was
 * {@link Admission#QUEUED queued}, the fence calls exactly one of the two methods, once;
 * a ticket withdrawn through {@link Ticket#cancel()} or {@link PathFence#cancelWaiting}
 * hears neither.
 * <p>
 * Either may be called before {@link PathFence#acquire} returns, on the acquiring thread:
 * a wait can end before the thread that started it has reported it to the listeners, and
 * the fence then leaves the news to that thread so that every listener hears of the wait
 * before it hears how it ended.
 */
public interface Waiter {

	/**
	 * The ticket holds a permit now. Called on the thread that freed or added the permit
	 * (the one that released a ticket or resized a reservation), outside the fence's
	 * lock: hand the task on (dispatch it), do not run it here. If this throws, the
	 * permit is released and goes on to the next waiter.
	 */
	void granted(Ticket ticket);

	/**
	 * The ticket waited its path's whole queue timeout, or the fence was closed, and is
	 * out of the queue. Called on one of the fence's expiry threads, which deliver one
	 * path's expiries in order and never another path's: a slow callback delays only
	 * later expiries of its own path, never the timer nor another path. Hand slow work (a
	 * future's dependents, say) on to threads of your own.
	 */
	void expired(Ticket ticket);

}
