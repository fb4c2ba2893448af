package io.pathfence.core;

/**
 * Tells each waiter, and the listeners of its ticket, how its wait ended: on the thread
 * that ended it (a release, a resize), on the ticket's expiry lane for a timeout, or on
 * the acquiring thread when the wait ended before that thread had reported it. Runs
 * outside the fence's lock.
 */
final class Outcomes {

	private static final System.Logger logger = System.getLogger(PathFence.class.getName());

	private final PathFence fence;

	Outcomes(PathFence fence) {
		this.fence = fence;
	}

	/**
	 * Tells a granted ticket's listeners and waiter. Runs on whichever thread freed or
	 * added the permit, so a failing waiter is contained here: the thread that released a
	 * permit, or the resize that granted several, must go on, and the failed ticket's
	 * permit goes back and on to the next waiter rather than staying held for good. A run
	 * of failing waiters (workers refusing every task while they shut down) is walked in
	 * a loop, not by recursion, so a long queue cannot overflow the stack.
	 */
	void granted(Ticket first) {
		Ticket ticket = first;
		while (ticket != null) {
			Ticket granted = ticket;
			ticket = null;
			if (!granted.mayTellOfEnd()) {
				// The acquiring thread has yet to report the wait; it tells of the grant.
				continue;
			}
			granted.listeners.dequeued(granted.path.name);
			granted.listeners.granted(granted.path.name, granted.waitEndedNanos - granted.createdNanos);
			try {
				granted.waiter.granted(granted);
			}
			catch (RuntimeException ex) {
				logger.log(System.Logger.Level.WARNING, "A granted task of path '" + granted.path.name
						+ "' could not be handed on; its permit is released", ex);
				ticket = releaseFailed(granted);
			}
			catch (Error err) {
				// The permit must not stay with a task that will not run, nor the next
				// waiter go untold.
				Ticket next = releaseFailed(granted);
				if (next != null) {
					granted(next);
				}
				throw err;
			}
		}
	}

	/**
	 * Releases a granted ticket whose waiter failed; returns whom the permit went to, not
	 * yet told.
	 */
	private Ticket releaseFailed(Ticket ticket) {
		long now = this.fence.now();
		Ticket next;
		this.fence.lock.lock();
		try {
			if (ticket.state != Ticket.State.GRANTED) {
				return null;
			}
			next = this.fence.permits.giveBack(ticket, now);
		}
		finally {
			this.fence.lock.unlock();
		}
		ticket.listeners.released(ticket.path.name, now - ticket.waitEndedNanos);
		return next;
	}

	/** Tells an expired ticket's listeners and waiter; runs on its expiry lane. */
	void expired(Ticket ticket) {
		if (!ticket.mayTellOfEnd()) {
			return;
		}
		ticket.listeners.dequeued(ticket.path.name);
		ticket.listeners.rejected(ticket.path.name, RejectionReason.TIMEOUT,
				ticket.waitEndedNanos - ticket.createdNanos);
		try {
			ticket.waiter.expired(ticket);
		}
		catch (RuntimeException | Error ex) {
			if (ex instanceof VirtualMachineError fatal) {
				throw fatal;
			}
			logger.log(System.Logger.Level.WARNING,
					"The waiter of an expired task of path '" + ticket.path.name + "' failed", ex);
		}
	}

	/**
	 * Tells of a wait that ended before the acquiring thread reported it; called by that
	 * thread, after it reported the wait.
	 */
	void endedBeforeReported(Ticket ticket) {
		Ticket.State state;
		this.fence.lock.lock();
		try {
			state = ticket.state;
		}
		finally {
			this.fence.lock.unlock();
		}
		switch (state) {
			case EXPIRED -> expired(ticket);
			case CANCELLED -> ticket.listeners.dequeued(ticket.path.name);
			default -> granted(ticket);
		}
	}

}
