package io.pathfence.core;

import java.util.List;

/**
 * Who gets a permit: the rules of Algorithm 1 over the fence's reservations, with the
 * local-priority rule, and the count of permits held in the pool. State only, no threads:
 * every method is called under the fence's lock.
 */
final class Permits {

	/** Replaced, not changed in place, when a path is added. */
	Reservation[] paths;

	final Reservation local;

	/** The paths, then the local reservation. */
	Reservation[] all;

	final int poolSize;

	final LocalPriority localPriority;

	/** Permits held across all reservations; at most the pool. */
	int inUseTotal;

	Permits(Reservation[] paths, Reservation local, int poolSize, LocalPriority localPriority) {
		this.paths = paths;
		this.local = local;
		this.all = java.util.Arrays.copyOf(paths, paths.length + 1);
		this.all[paths.length] = local;
		this.poolSize = poolSize;
		this.localPriority = localPriority;
	}

	void add(Reservation path) {
		this.paths = java.util.Arrays.copyOf(this.paths, this.paths.length + 1);
		this.paths[this.paths.length - 1] = path;
		this.all = java.util.Arrays.copyOf(this.paths, this.paths.length + 1);
		this.all[this.paths.length] = this.local;
	}

	void remove(Reservation path) {
		this.paths = java.util.Arrays.stream(this.paths).filter((other) -> other != path).toArray(Reservation[]::new);
		this.all = java.util.Arrays.copyOf(this.paths, this.paths.length + 1);
		this.all[this.paths.length] = this.local;
	}

	/** Gives a granted ticket's permit back and on; returns whom it went to. */
	Ticket giveBack(Ticket ticket, long now) {
		ticket.state = Ticket.State.RELEASED;
		Reservation owner = ticket.owner;
		owner.inUse--;
		ticket.path.active--;
		if (owner != ticket.path) {
			owner.lent--;
			ticket.path.borrowed--;
		}
		this.inUseTotal--;
		Ticket next = handOn(owner, now);
		if (next == null) {
			// The owner has no one to give the permit to, or it retires: its place in
			// the pool may be what a grown reservation's waiter was held back by.
			next = handOnToAnyWaiter(now);
		}
		return next;
	}

	/**
	 * Where a task of this reservation may get a permit now, or null; called under the
	 * lock.
	 */
	Reservation freePermitFor(Reservation reservation) {
		if (canGrant(reservation)) {
			return reservation;
		}
		if (!reservation.local) {
			return null;
		}
		// The least busy lender: its permits in use, its own tasks and those it already
		// lent, so that repeated borrowing spreads over the paths instead of draining the
		// one whose own tasks happen to be fewest.
		Reservation lender = null;
		for (Reservation path : this.paths) {
			if (mayLend(path) && (lender == null || path.inUse < lender.inUse)) {
				lender = path;
			}
		}
		return lender;
	}

	/** Whether a local task may borrow a permit of this path now. */
	private boolean mayLend(Reservation path) {
		return canGrant(path) && (this.localPriority == LocalPriority.STRICT || path.queue.isEmpty());
	}

	void handOnAll(Reservation owner, long now, List<Ticket> granted) {
		Ticket next;
		while ((next = handOn(owner, now)) != null) {
			granted.add(next);
		}
	}

	/**
	 * Whether a permit of this reservation may be granted now: it has one free and the
	 * pool has room.
	 */
	private boolean canGrant(Reservation reservation) {
		return reservation.free() > 0 && this.inUseTotal < this.poolSize;
	}

	/**
	 * Gives one free permit of {@code owner} to the task that should have it: its own
	 * next task, or a local one (first under the strict rule, else only when the owner
	 * has none waiting). Called under the lock.
	 */
	private Ticket handOn(Reservation owner, long now) {
		if (!canGrant(owner)) {
			return null;
		}
		Ticket next;
		if (owner.local || this.localPriority == LocalPriority.STRICT) {
			next = this.local.queue.poll();
			if (next == null && !owner.local) {
				next = owner.queue.poll();
			}
		}
		else {
			next = owner.queue.poll();
			if (next == null) {
				next = this.local.queue.poll();
			}
		}
		if (next != null) {
			grant(next, owner, now);
		}
		return next;
	}

	/**
	 * Gives the pool's room to a waiter whose own reservation has a free permit: by the
	 * local-priority rule, a local waiter (on its own permit or a lent one) before or
	 * after the first path with a waiter. Needed only while some reservation holds
	 * permits beyond its size; otherwise every waiter's own reservation is full. Called
	 * under the lock.
	 */
	private Ticket handOnToAnyWaiter(long now) {
		Ticket next = (this.localPriority == LocalPriority.STRICT) ? handOnToLocal(now) : null;
		for (int i = 0; next == null && i < this.paths.length; i++) {
			Reservation path = this.paths[i];
			if (!path.queue.isEmpty() && canGrant(path)) {
				next = path.queue.poll();
				grant(next, path, now);
			}
		}
		return (next != null || this.localPriority == LocalPriority.STRICT) ? next : handOnToLocal(now);
	}

	private Ticket handOnToLocal(long now) {
		if (this.local.queue.isEmpty()) {
			return null;
		}
		Reservation owner = freePermitFor(this.local);
		if (owner == null) {
			return null;
		}
		Ticket next = this.local.queue.poll();
		grant(next, owner, now);
		return next;
	}

	void grant(Ticket ticket, Reservation owner, long now) {
		ticket.state = Ticket.State.GRANTED;
		ticket.owner = owner;
		ticket.waitEndedNanos = now;
		owner.inUse++;
		this.inUseTotal++;
		ticket.path.active++;
		if (owner != ticket.path) {
			owner.lent++;
			ticket.path.borrowed++;
		}
	}

	long sumOfPaths() {
		long sum = 0;
		for (Reservation path : this.paths) {
			sum += path.permits;
		}
		return sum;
	}

	void checkFits(long total) {
		if (total > this.poolSize) {
			throw new IllegalArgumentException(
					"reservations would add up to " + total + " permits, more than the pool of " + this.poolSize);
		}
	}

}
