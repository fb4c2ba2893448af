package io.pathfence.core;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * What tests read of a fence's inner state, each read under the fence's lock, and the
 * invariants they check. Test code only: clients branch on {@link Ticket#admission()}.
 */
final class Inspection {

	private Inspection() {
	}

	static Ticket.State stateOf(Ticket ticket) {
		ticket.fence.lock.lock();
		try {
			return ticket.state;
		}
		finally {
			ticket.fence.lock.unlock();
		}
	}

	static boolean isGranted(Ticket ticket) {
		return stateOf(ticket) == Ticket.State.GRANTED;
	}

	static boolean isWaiting(Ticket ticket) {
		return stateOf(ticket) == Ticket.State.WAITING;
	}

	static boolean isRejected(Ticket ticket) {
		return stateOf(ticket) == Ticket.State.REJECTED;
	}

	/** The reservation whose permit the ticket holds or held (its own when none yet). */
	static String ownerOf(Ticket ticket) {
		ticket.fence.lock.lock();
		try {
			return (ticket.owner != null) ? ticket.owner.name : ticket.path.name;
		}
		finally {
			ticket.fence.lock.unlock();
		}
	}

	static boolean isBorrowed(Ticket ticket) {
		return !ownerOf(ticket).equals(ticket.path());
	}

	/**
	 * A waiter that hands each grant to {@code onGrant} and each expiry to
	 * {@code onExpiry}.
	 */
	static Waiter waiter(Consumer<Ticket> onGrant, Consumer<Ticket> onExpiry) {
		return new Waiter() {
			@Override
			public void granted(Ticket ticket) {
				onGrant.accept(ticket);
			}

			@Override
			public void expired(Ticket ticket) {
				onExpiry.accept(ticket);
			}
		};
	}

	/** A waiter for fences without queue timeouts: an expiry is a failure of the test. */
	static Waiter onGrant(Consumer<Ticket> onGrant) {
		return waiter(onGrant, (ticket) -> {
			throw new AssertionError("unexpected expiry of " + ticket);
		});
	}

	/**
	 * What is wrong with the fence's state right now, empty when all is well. Checks that
	 * counts are not negative, that lent and borrowed permits match, that the
	 * reservations fit the pool, that the permits held are counted and fit it too, and
	 * that no task waits while a permit it may take is free.
	 */
	static List<String> violations(PathFence fence) {
		List<String> violations = new ArrayList<>();
		Permits permits = fence.permits;
		fence.lock.lock();
		try {
			int lent = 0;
			boolean pathMayLend = false;
			long sizes = permits.local.permits;
			for (Reservation path : permits.paths) {
				lent += path.lent;
				sizes += path.permits;
				boolean free = path.free() > 0 && permits.inUseTotal < permits.poolSize;
				pathMayLend |= free && (permits.localPriority == LocalPriority.STRICT || path.queue.isEmpty());
				if (path.active < 0 || path.inUse < 0 || path.lent < 0 || path.inUse < path.lent) {
					violations.add("negative or inconsistent counts on " + path.figures() + " inUse=" + path.inUse);
				}
				if (path.inUse - path.lent != path.active) {
					violations.add("path " + path.name + " runs " + path.active + " tasks on "
							+ (path.inUse - path.lent) + " own permits");
				}
				if (!path.queue.isEmpty() && free) {
					violations.add("path " + path.name + " has " + path.queue.size() + " waiting with " + path.free()
							+ " free permits");
				}
			}
			Reservation local = permits.local;
			if (lent != local.borrowed) {
				violations.add("paths lent " + lent + " permits but local tasks hold " + local.borrowed);
			}
			if (local.active != local.inUse + local.borrowed || local.inUse < 0) {
				violations.add("local runs " + local.active + " tasks on " + local.inUse + " own and " + local.borrowed
						+ " borrowed permits");
			}
			boolean localFree = local.free() > 0 && permits.inUseTotal < permits.poolSize;
			if (!local.queue.isEmpty() && (localFree || pathMayLend)) {
				violations.add("local has " + local.queue.size() + " waiting while a permit it may take is free");
			}
			if (sizes > permits.poolSize) {
				violations.add("reservations exceed the pool of " + permits.poolSize);
			}
			int held = local.inUse;
			for (Reservation path : permits.paths) {
				held += path.inUse;
			}
			if (held != permits.inUseTotal || held > permits.poolSize) {
				violations
					.add(held + " permits held (counted " + permits.inUseTotal + "), pool of " + permits.poolSize);
			}
			for (Reservation reservation : permits.all) {
				int linked = 0;
				for (Ticket ticket = reservation.queue.peek(); ticket != null; ticket = ticket.next) {
					linked++;
					if (ticket.state != Ticket.State.WAITING) {
						violations.add("a " + ticket.state + " ticket in the queue of " + reservation.name);
					}
				}
				if (linked != reservation.queue.size()) {
					violations.add("queue of " + reservation.name + " links " + linked + " tickets, counts "
							+ reservation.queue.size());
				}
			}
		}
		finally {
			fence.lock.unlock();
		}
		return violations;
	}

}
