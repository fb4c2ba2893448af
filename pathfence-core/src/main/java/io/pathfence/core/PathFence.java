package io.pathfence.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * A pool of permits split into named path reservations plus a local reservation
 * (Algorithm 1 of the PathFence paper, with borrowed permits returned to their owner and
 * no task ever waiting on a thread).
 * <ul>
 * <li>A task of path {@code p} runs only on a free permit of {@code p}; otherwise it
 * waits in {@code p}'s FIFO queue, which holds at most {@code maxQueue} tasks.</li>
 * <li>A local task takes a local permit; failing that it borrows a free permit from the
 * path with the fewest permits in use (its own tasks and permits it already lent);
 * failing that it waits in the local queue.</li>
 * <li>A released permit goes first to a waiting local task (lent, if it is a path's),
 * else to the next task of the reservation that owns it, else it becomes free. A permit
 * freed above a shrunk reservation's size retires.</li>
 * <li>A reservation's size changes only through {@link #resize(String, int)}; the
 * reservations never add up to more than the pool, and the permits held never outnumber
 * the pool either: while a shrunk reservation's permits retire, a grown one gets each as
 * it retires, so a resize never runs more tasks than there are threads.</li>
 * </ul>
 * Invariant after every operation: no task waits while a permit it may take is free.
 * <p>
 * State is guarded by one lock held for a handful of field updates; grant listeners and
 * the {@link PathFenceListener} run after it is released.
 */
public final class PathFence {

	private static final System.Logger logger = System.getLogger(PathFence.class.getName());

	/**
	 * The name of the local reservation, which serves requests that call no downstream.
	 */
	public static final String LOCAL = "local";

	private final ReentrantLock lock = new ReentrantLock();

	private final Map<String, Reservation> reservations;

	private final Reservation[] paths;

	private final Reservation local;

	private final int poolSize;

	/**
	 * Whether the local reservation is whatever the paths leave of the pool, as in the
	 * paper.
	 */
	private final boolean localIsRemainder;

	private final LongSupplier nanoClock;

	private final PathFenceListener listener;

	/** Permits held across all reservations; at most the pool. Guarded by the lock. */
	private int inUseTotal;

	/**
	 * Whether anyone hears wait and service times; when not, the clock is not read at
	 * all.
	 */
	private final boolean timed;

	private PathFence(Builder builder) {
		this.poolSize = builder.poolSize;
		this.nanoClock = builder.nanoClock;
		this.listener = builder.listener;
		this.timed = builder.listener != PathFenceListener.NONE;
		Map<String, Reservation> byName = new LinkedHashMap<>();
		for (Builder.PathSpec spec : builder.paths) {
			byName.put(spec.name(), new Reservation(spec.name(), false, spec.permits(), spec.maxQueue(),
					spec.queueTimeout().toNanos()));
		}
		this.paths = byName.values().toArray(new Reservation[0]);
		this.localIsRemainder = builder.localPermits < 0;
		int localPermits = (builder.localPermits >= 0) ? builder.localPermits : this.poolSize - sumOfPaths();
		this.local = new Reservation(LOCAL, true, localPermits, builder.localMaxQueue,
				builder.localQueueTimeout.toNanos());
		byName.put(LOCAL, this.local);
		this.reservations = Collections.unmodifiableMap(byName);
		checkFits(sumOfPaths());
		checkFits(this.local.permits + sumOfPaths());
	}

	public static Builder builder(int poolSize) {
		return new Builder(poolSize);
	}

	/** The number of permits the reservations may add up to. */
	public int poolSize() {
		return this.poolSize;
	}

	/**
	 * Whether the local reservation takes what the paths leave of the pool, rather than a
	 * size of its own.
	 */
	public boolean localIsRemainder() {
		return this.localIsRemainder;
	}

	/** The names of the path reservations and {@link #LOCAL}, in configuration order. */
	public List<String> pathNames() {
		return List.copyOf(this.reservations.keySet());
	}

	/** Whether a reservation of this name exists. */
	public boolean hasPath(String path) {
		return this.reservations.containsKey(path);
	}

	/**
	 * Claims a permit for a task of {@code path}. Branch on the returned ticket's
	 * {@link Ticket#admission()}: granted (run the task now, then
	 * {@link Ticket#release()}), queued ({@code onGrant} is told when it is granted,
	 * possibly before this method returns), or rejected because the path's queue is full.
	 * @throws IllegalArgumentException if no reservation has that name
	 */
	public Ticket acquire(String path, GrantListener onGrant) {
		Reservation reservation = reservation(path);
		long now = now();
		Ticket ticket = new Ticket(this, reservation, Objects.requireNonNull(onGrant, "onGrant"), now);
		this.lock.lock();
		try {
			Reservation owner = reservation.queue.isEmpty() ? freePermitFor(reservation) : null;
			if (owner != null) {
				grant(ticket, owner, now);
				ticket.admission = Admission.GRANTED;
			}
			else if (reservation.queue.size() < reservation.maxQueue) {
				ticket.state = Ticket.State.WAITING;
				ticket.admission = Admission.QUEUED;
				reservation.queue.addLast(ticket);
			}
			else {
				ticket.state = Ticket.State.REJECTED;
				ticket.admission = Admission.REJECTED;
			}
		}
		finally {
			this.lock.unlock();
		}
		if (ticket.admission == Admission.GRANTED) {
			this.listener.onGranted(path, 0);
		}
		else if (ticket.admission == Admission.QUEUED) {
			this.listener.onQueued(path);
		}
		else if (ticket.admission == Admission.REJECTED) {
			this.listener.onRejected(path, RejectionReason.QUEUE_FULL);
		}
		return ticket;
	}

	boolean release(Ticket ticket) {
		long now = now();
		Ticket next = releaseAndHandOn(ticket, now);
		if (next == NOT_HELD) {
			return false;
		}
		if (next != null) {
			notifyGranted(next, now);
		}
		return true;
	}

	/**
	 * What releasing a ticket that held no permit returns: not a ticket, and not "no one
	 * to hand on to".
	 */
	private static final Ticket NOT_HELD = new Ticket(null, null, (ticket) -> {
	}, 0);

	/**
	 * Gives a granted ticket's permit back and hands it on, telling the listener; returns
	 * the ticket the permit was granted to next (not yet notified), or {@code null}. Does
	 * nothing for a ticket that holds no permit, which the caller tells by
	 * {@link Ticket#state} beforehand or by {@link #release}'s result.
	 */
	private Ticket releaseAndHandOn(Ticket ticket, long now) {
		Ticket next;
		long heldNanos;
		this.lock.lock();
		try {
			if (ticket.state != Ticket.State.GRANTED) {
				return NOT_HELD;
			}
			ticket.state = Ticket.State.RELEASED;
			heldNanos = now - ticket.grantedNanos;
			Reservation owner = ticket.owner;
			owner.inUse--;
			ticket.path.active--;
			if (owner != ticket.path) {
				owner.lent--;
				ticket.path.borrowed--;
			}
			this.inUseTotal--;
			next = handOn(owner, now);
			if (next == null) {
				// The owner has no one to give the permit to, or it retires: its place in
				// the pool may be what a
				// grown reservation's waiter was held back by.
				next = handOnToAnyWaiter(now);
			}
		}
		finally {
			this.lock.unlock();
		}
		this.listener.onReleased(ticket.path.name, heldNanos);
		return next;
	}

	boolean cancel(Ticket ticket, RejectionReason reason) {
		this.lock.lock();
		try {
			if (ticket.state != Ticket.State.WAITING) {
				return false;
			}
			ticket.path.queue.remove(ticket);
			ticket.state = Ticket.State.CANCELLED;
		}
		finally {
			this.lock.unlock();
		}
		this.listener.onDequeued(ticket.path.name);
		if (reason != null) {
			this.listener.onRejected(ticket.path.name, reason);
		}
		return true;
	}

	/**
	 * Sets a reservation's size. Growing grants waiting tasks at once; shrinking lets the
	 * permits above the new size retire as their holders finish, so no running task is
	 * disturbed. When the local reservation was not sized explicitly it keeps taking what
	 * the paths leave of the pool, and cannot itself be resized.
	 * @throws IllegalArgumentException if the path is unknown, the size negative, or the
	 * reservations would add up to more than the pool
	 */
	public void resize(String path, int permits) {
		Reservation reservation = reservation(path);
		if (permits < 0) {
			throw new IllegalArgumentException("permits of path '" + path + "' must be >= 0, was " + permits);
		}
		if (reservation.local && this.localIsRemainder) {
			throw new IllegalArgumentException("the local reservation takes what the paths leave of the pool; "
					+ "size it explicitly to resize it");
		}
		List<Ticket> granted = new ArrayList<>();
		long now = now();
		this.lock.lock();
		try {
			int paths = sumOfPaths() - (reservation.local ? 0 : reservation.permits)
					+ (reservation.local ? 0 : permits);
			checkFits(paths + (this.localIsRemainder ? 0 : (reservation.local ? permits : this.local.permits)));
			reservation.permits = permits;
			if (this.localIsRemainder) {
				this.local.permits = this.poolSize - paths;
			}
			handOnAll(reservation, now, granted);
			handOnAll(this.local, now, granted);
		}
		finally {
			this.lock.unlock();
		}
		for (Ticket ticket : granted) {
			notifyGranted(ticket, now);
		}
	}

	/** A consistent snapshot of every reservation, paths first, local last. */
	public List<PathFigures> figures() {
		this.lock.lock();
		try {
			List<PathFigures> figures = new ArrayList<>(this.paths.length + 1);
			for (Reservation path : this.paths) {
				figures.add(path.figures());
			}
			figures.add(this.local.figures());
			return figures;
		}
		finally {
			this.lock.unlock();
		}
	}

	/** A snapshot of one reservation. */
	public PathFigures figures(String path) {
		Reservation reservation = reservation(path);
		this.lock.lock();
		try {
			return reservation.figures();
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Sets how many tasks of a path may wait; tasks already waiting beyond it stay. */
	public void setMaxQueue(String path, int maxQueue) {
		Reservation reservation = reservation(path);
		if (maxQueue < 0) {
			throw new IllegalArgumentException("max-queue of path '" + path + "' must be >= 0, was " + maxQueue);
		}
		this.lock.lock();
		try {
			reservation.maxQueue = maxQueue;
		}
		finally {
			this.lock.unlock();
		}
	}

	Ticket.State stateOf(Ticket ticket) {
		this.lock.lock();
		try {
			return ticket.state;
		}
		finally {
			this.lock.unlock();
		}
	}

	Reservation ownerOf(Ticket ticket) {
		this.lock.lock();
		try {
			return (ticket.owner != null) ? ticket.owner : ticket.path;
		}
		finally {
			this.lock.unlock();
		}
	}

	long queueTimeoutOf(Ticket ticket) {
		// Fixed when the fence is built, so it is read without the lock.
		return ticket.path.queueTimeoutNanos;
	}

	/**
	 * What is wrong with the fence's state right now, empty when all is well: used by
	 * stress tests after a run. Checks that counts are not negative, that lent and
	 * borrowed permits match, that the reservations fit the pool, and that no task waits
	 * while a permit it may take is free.
	 */
	List<String> invariantViolations() {
		List<String> violations = new ArrayList<>();
		this.lock.lock();
		try {
			int lent = 0;
			boolean pathHasFreePermit = false;
			for (Reservation path : this.paths) {
				lent += path.lent;
				pathHasFreePermit |= canGrant(path);
				if (path.active < 0 || path.inUse < 0 || path.lent < 0 || path.inUse < path.lent) {
					violations.add("negative or inconsistent counts on " + path.figures() + " inUse=" + path.inUse);
				}
				if (path.inUse - path.lent != path.active) {
					violations.add("path " + path.name + " runs " + path.active + " tasks on "
							+ (path.inUse - path.lent) + " own permits");
				}
				if (!path.queue.isEmpty() && canGrant(path)) {
					violations.add("path " + path.name + " has " + path.queue.size() + " waiting with " + path.free()
							+ " free permits");
				}
			}
			if (lent != this.local.borrowed) {
				violations.add("paths lent " + lent + " permits but local tasks hold " + this.local.borrowed);
			}
			if (this.local.active != this.local.inUse + this.local.borrowed || this.local.inUse < 0) {
				violations.add("local runs " + this.local.active + " tasks on " + this.local.inUse + " own and "
						+ this.local.borrowed + " borrowed permits");
			}
			if (!this.local.queue.isEmpty() && (canGrant(this.local) || pathHasFreePermit)) {
				violations.add("local has " + this.local.queue.size() + " waiting while a permit is free");
			}
			if (sumOfPaths() + this.local.permits > this.poolSize) {
				violations.add("reservations exceed the pool of " + this.poolSize);
			}
			int held = this.local.inUse;
			for (Reservation path : this.paths) {
				held += path.inUse;
			}
			if (held != this.inUseTotal || held > this.poolSize) {
				violations.add(held + " permits held (counted " + this.inUseTotal + "), pool of " + this.poolSize);
			}
		}
		finally {
			this.lock.unlock();
		}
		return violations;
	}

	/**
	 * Where a task of this reservation may get a permit now, or null; called under the
	 * lock.
	 */
	private Reservation freePermitFor(Reservation reservation) {
		if (canGrant(reservation)) {
			return reservation;
		}
		if (!reservation.local) {
			return null;
		}
		// The least busy lender: its permits in use, its own tasks and those it already
		// lent, so that repeated
		// borrowing spreads over the paths instead of draining the one whose own tasks
		// happen to be fewest.
		Reservation lender = null;
		for (Reservation path : this.paths) {
			if (canGrant(path) && (lender == null || path.inUse < lender.inUse)) {
				lender = path;
			}
		}
		return lender;
	}

	private void handOnAll(Reservation owner, long now, List<Ticket> granted) {
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
	 * Gives one free permit of {@code owner} to the task that should have it; called
	 * under the lock.
	 */
	private Ticket handOn(Reservation owner, long now) {
		if (!canGrant(owner)) {
			return null;
		}
		Ticket next = this.local.queue.pollFirst();
		if (next == null && !owner.local) {
			next = owner.queue.pollFirst();
		}
		if (next != null) {
			grant(next, owner, now);
		}
		return next;
	}

	/**
	 * Gives the pool's room to a waiter whose own reservation has a free permit: a local
	 * waiter first (on its own permit or a lent one), else the first path with a waiter.
	 * Needed only while some reservation holds permits beyond its size; otherwise every
	 * waiter's own reservation is full. Called under the lock.
	 */
	private Ticket handOnToAnyWaiter(long now) {
		if (!this.local.queue.isEmpty()) {
			Reservation owner = freePermitFor(this.local);
			if (owner != null) {
				Ticket next = this.local.queue.pollFirst();
				grant(next, owner, now);
				return next;
			}
		}
		for (Reservation path : this.paths) {
			if (!path.queue.isEmpty() && canGrant(path)) {
				Ticket next = path.queue.pollFirst();
				grant(next, path, now);
				return next;
			}
		}
		return null;
	}

	private long now() {
		return this.timed ? this.nanoClock.getAsLong() : 0L;
	}

	private void grant(Ticket ticket, Reservation owner, long now) {
		ticket.state = Ticket.State.GRANTED;
		ticket.owner = owner;
		ticket.grantedNanos = now;
		owner.inUse++;
		this.inUseTotal++;
		ticket.path.active++;
		if (owner != ticket.path) {
			owner.lent++;
			ticket.path.borrowed++;
		}
	}

	/**
	 * Tells a ticket's listener it was granted. Runs on whichever thread freed or added
	 * the permit, so a failing listener is contained here: the thread that released a
	 * permit, or the resize that granted several, must go on, and the failed ticket's
	 * permit goes back and on to the next waiter rather than staying held for good. A run
	 * of failing listeners (workers refusing every task while they shut down) is walked
	 * in a loop, not by recursion, so a long queue cannot overflow the stack.
	 */
	private void notifyGranted(Ticket first, long now) {
		Ticket ticket = first;
		while (ticket != null) {
			Ticket granted = ticket;
			try {
				this.listener.onDequeued(granted.path.name);
				this.listener.onGranted(granted.path.name, now - granted.createdNanos);
				granted.listener.granted(granted);
				ticket = null;
			}
			catch (RuntimeException ex) {
				logger.log(System.Logger.Level.WARNING, "A granted task of path '" + granted.path.name
						+ "' could not be handed on; its permit is released", ex);
				ticket = handedBack(releaseAndHandOn(granted, now));
			}
			catch (Error err) {
				// The permit must not stay with a task that will not run, nor the next
				// waiter go untold.
				Ticket next = handedBack(releaseAndHandOn(granted, now));
				if (next != null) {
					notifyGranted(next, now);
				}
				throw err;
			}
		}
	}

	private static Ticket handedBack(Ticket next) {
		return (next == NOT_HELD) ? null : next;
	}

	private int sumOfPaths() {
		int sum = 0;
		for (Reservation path : this.paths) {
			sum += path.permits;
		}
		return sum;
	}

	private void checkFits(int total) {
		if (total > this.poolSize) {
			throw new IllegalArgumentException(
					"reservations would add up to " + total + " permits, more than the pool of " + this.poolSize);
		}
	}

	private Reservation reservation(String path) {
		Reservation reservation = this.reservations.get(path);
		if (reservation == null) {
			throw new IllegalArgumentException(
					"unknown path '" + path + "'; known paths: " + this.reservations.keySet());
		}
		return reservation;
	}

	/** Describes a fence before it is built. */
	public static final class Builder {

		record PathSpec(String name, int permits, int maxQueue, Duration queueTimeout) {
		}

		private final int poolSize;

		private final List<PathSpec> paths = new ArrayList<>();

		private int localPermits = -1;

		private int localMaxQueue = Integer.MAX_VALUE;

		private Duration localQueueTimeout = Duration.ZERO;

		private LongSupplier nanoClock = System::nanoTime;

		private PathFenceListener listener = PathFenceListener.NONE;

		private Builder(int poolSize) {
			if (poolSize <= 0) {
				throw new IllegalArgumentException("pool size must be > 0, was " + poolSize);
			}
			this.poolSize = poolSize;
		}

		/**
		 * Adds a path reservation; {@code queueTimeout} of zero means a task may wait
		 * without limit.
		 */
		public Builder path(String name, int permits, int maxQueue, Duration queueTimeout) {
			Objects.requireNonNull(name, "name");
			if (name.isBlank() || LOCAL.equals(name)) {
				throw new IllegalArgumentException(
						"path name must be non-blank and not '" + LOCAL + "': '" + name + "'");
			}
			if (this.paths.stream().anyMatch((spec) -> spec.name().equals(name))) {
				throw new IllegalArgumentException("path '" + name + "' is defined twice");
			}
			if (permits < 0 || maxQueue < 0 || queueTimeout.isNegative()) {
				throw new IllegalArgumentException(
						"path '" + name + "' needs permits >= 0, max-queue >= 0 and a " + "queue timeout >= 0");
			}
			this.paths.add(new PathSpec(name, permits, maxQueue, queueTimeout));
			return this;
		}

		/**
		 * Sizes the local reservation; by default it takes what the paths leave of the
		 * pool.
		 */
		public Builder local(int permits, int maxQueue, Duration queueTimeout) {
			if (permits < 0 || maxQueue < 0 || queueTimeout.isNegative()) {
				throw new IllegalArgumentException(
						"local reservation needs permits >= 0, max-queue >= 0 and a " + "queue timeout >= 0");
			}
			this.localPermits = permits;
			this.localMaxQueue = maxQueue;
			this.localQueueTimeout = queueTimeout;
			return this;
		}

		/**
		 * Bounds the local queue while the local reservation keeps taking what the paths
		 * leave of the pool.
		 */
		public Builder localQueue(int maxQueue, Duration queueTimeout) {
			if (maxQueue < 0 || queueTimeout.isNegative()) {
				throw new IllegalArgumentException("local queue needs max-queue >= 0 and a queue timeout >= 0");
			}
			this.localMaxQueue = maxQueue;
			this.localQueueTimeout = queueTimeout;
			return this;
		}

		/**
		 * The clock for wait and service times, in nanoseconds; {@link System#nanoTime()}
		 * by default.
		 */
		public Builder nanoClock(LongSupplier nanoClock) {
			this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
			return this;
		}

		public Builder listener(PathFenceListener listener) {
			this.listener = Objects.requireNonNull(listener, "listener");
			return this;
		}

		public PathFence build() {
			return new PathFence(this);
		}

	}

}
