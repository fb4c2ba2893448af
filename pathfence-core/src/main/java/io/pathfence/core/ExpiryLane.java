package io.pathfence.core;

/**
 * One reservation's expired tickets on their way to their waiters, delivered in the order
 * they expired, one at a time, on whichever expiry thread runs the lane. A lane runs on
 * one thread at a time and each reservation has its own, so a slow callback holds up only
 * its own path's later expiries. The list is linked through the tickets, which have left
 * their wait queue; it is guarded by the fence's lock.
 */
final class ExpiryLane implements Runnable {

	private final PathFence fence;

	private Ticket first;

	private Ticket last;

	private boolean running;

	ExpiryLane(PathFence fence) {
		this.fence = fence;
	}

	/**
	 * Adds an expired ticket; returns {@code true} when the lane must be started. Called
	 * under the lock.
	 */
	boolean add(Ticket ticket) {
		ticket.next = null;
		if (this.last == null) {
			this.first = ticket;
		}
		else {
			this.last.next = ticket;
		}
		this.last = ticket;
		if (this.running) {
			return false;
		}
		this.running = true;
		return true;
	}

	/**
	 * Delivers until the lane is empty. A fatal error from one waiter (a stack overflow,
	 * no memory for a thread) is thrown only once the lane is empty and marked idle:
	 * thrown at once, it would take the rest of the batch with it and leave the lane
	 * marked running for good, so the path would never hear of a timeout again.
	 */
	@Override
	public void run() {
		VirtualMachineError fatal = null;
		while (true) {
			Ticket batch;
			this.fence.lock.lock();
			try {
				batch = this.first;
				this.first = null;
				this.last = null;
				if (batch == null) {
					this.running = false;
					break;
				}
			}
			finally {
				this.fence.lock.unlock();
			}
			while (batch != null) {
				Ticket expired = batch;
				batch = batch.next;
				expired.next = null;
				try {
					this.fence.outcomes.expired(expired);
				}
				catch (VirtualMachineError ex) {
					if (fatal == null) {
						fatal = ex;
					}
				}
			}
		}
		if (fatal != null) {
			throw fatal;
		}
	}

}
