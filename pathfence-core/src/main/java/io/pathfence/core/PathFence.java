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
import java.util.function.Predicate;

/**
 * A pool of permits split into named path reservations plus a local reservation
 * (Algorithm 1 of the PathFence paper, with borrowed permits returned to their owner and
 * no task ever waiting on a thread).
 * <ul>
 * <li>A task of path {@code p} runs only on a free permit of {@code p}; otherwise it
 * waits in {@code p}'s FIFO queue, which holds at most {@code maxQueue} tasks, for at
 * most {@code p}'s queue timeout.</li>
 * <li>A local task takes a local permit; failing that it borrows an idle permit from the
 * path with the fewest permits in use (its own tasks and permits it already lent);
 * failing that it waits in the local queue.</li>
 * <li>A released permit of a path goes to the next task of that path, else to a waiting
 * local task (lent), else it becomes free; with {@link LocalPriority#STRICT} a waiting
 * local task comes first, as in the paper. A permit freed above a shrunk reservation's
 * size retires.</li>
 * <li>A path added at run time ({@link #addPath}) takes its permits from the local
 * reservation, whose permits above its new size retire as their holders finish.</li>
 * <li>A reservation's size changes only through {@link #resize(String, int)}; the
 * reservations never add up to more than the pool, and the permits held never outnumber
 * the pool either: while a shrunk reservation's permits retire, a grown one gets each as
 * it retires, so a resize never runs more tasks than there are threads.</li>
 * </ul>
 * Invariant after every operation: no task waits while a permit it may take is free.
 * <p>
 * State is guarded by one lock held for a handful of field updates. Nothing but the
 * fence's own code runs under it or on its timer thread: waiters and listeners are told
 * afterwards, on the threads their javadoc names ({@link Waiter},
 * {@link PathFenceListener}).
 */
public final class PathFence implements AutoCloseable {

	/**
	 * The name of the local reservation, which serves requests that call no downstream.
	 */
	public static final String LOCAL = "local";

	final ReentrantLock lock = new ReentrantLock();

	/**
	 * Replaced whole, under the lock, when a path is added, so that looking a path up
	 * takes no lock.
	 */
	private volatile Map<String, Reservation> reservations;

	/** Who gets a permit; guarded by the lock. */
	final Permits permits;

	/**
	 * Whether the local reservation is whatever the paths leave of the pool, as in the
	 * paper.
	 */
	private final boolean localIsRemainder;

	private final LongSupplier nanoClock;

	private final WaitTimer timer;

	final Outcomes outcomes = new Outcomes(this);

	private volatile Listeners listeners = Listeners.NONE;

	/** Guarded by the lock. */
	boolean closed;

	PathFence(PathFenceBuilder builder) {
		this.nanoClock = builder.nanoClock;
		Map<String, Reservation> byName = new LinkedHashMap<>();
		long sumOfPaths = 0;
		for (PathFenceBuilder.PathSpec spec : builder.paths) {
			byName.put(spec.name(),
					new Reservation(this, spec.name(), false, spec.permits(), spec.maxQueue(), spec.timeoutNanos()));
			sumOfPaths += spec.permits();
		}
		Reservation[] paths = byName.values().toArray(new Reservation[0]);
		this.localIsRemainder = builder.localPermits < 0;
		int localPermits = (builder.localPermits >= 0) ? builder.localPermits
				: (int) Math.max(0, builder.poolSize - sumOfPaths);
		Reservation local = new Reservation(this, LOCAL, true, localPermits, builder.localMaxQueue,
				builder.localTimeoutNanos);
		byName.put(LOCAL, local);
		this.reservations = Collections.unmodifiableMap(byName);
		this.permits = new Permits(paths, local, builder.poolSize, builder.localPriority);
		this.permits.checkFits(sumOfPaths);
		this.permits.checkFits(sumOfPaths + localPermits);
		this.timer = new WaitTimer(this);
	}

	public static PathFenceBuilder builder(int poolSize) {
		return new PathFenceBuilder(poolSize);
	}

	/** The number of permits the reservations may add up to. */
	public int poolSize() {
		return this.permits.poolSize;
	}

	/**
	 * Whether the local reservation takes what the paths leave of the pool, rather than a
	 * size of its own.
	 */
	public boolean localIsRemainder() {
		return this.localIsRemainder;
	}

	/** Which waiting task a path's released permit goes to when a local one waits too. */
	public LocalPriority localPriority() {
		return this.permits.localPriority;
	}

	/**
	 * The names of the path reservations, in configuration order then as added, and
	 * {@link #LOCAL} last.
	 */
	public List<String> pathNames() {
		return List.copyOf(this.reservations.keySet());
	}

	/** Whether a reservation of this name exists. */
	public boolean hasPath(String path) {
		return this.reservations.containsKey(path);
	}

	/** How long a task of this path may wait for a permit; zero for no limit. */
	public Duration queueTimeout(String path) {
		return Duration.ofNanos(reservation(path).queueTimeoutNanos);
	}

	/**
	 * Registers a listener for the tickets acquired from now on. Listeners cannot be
	 * removed: a ticket's events all go to the listeners it started with.
	 */
	public void addListener(PathFenceListener listener) {
		Objects.requireNonNull(listener, "listener");
		this.lock.lock();
		try {
			this.listeners = this.listeners.with(listener);
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Claims a permit for a task of {@code path}. Branch on the returned ticket's
	 * {@link Ticket#admission()}: granted (run the task now, then
	 * {@link Ticket#release()}), queued ({@code waiter} is told when it is granted or
	 * expires, possibly before this method returns), or rejected because the path's queue
	 * is full.
	 * @throws IllegalArgumentException if no reservation has that name
	 * @throws IllegalStateException if the fence is closed
	 */
	public Ticket acquire(String path, Waiter waiter) {
		// Only the grant at once is written out here; the rest is in methods of its own.
		// So this method stays small enough for the JIT to inline it into a hot caller,
		// and a ticket that is granted and released within one compiled method (the
		// filter's) need not be allocated at all.
		Reservation reservation = reservation(path);
		Objects.requireNonNull(waiter, "waiter");
		Listeners heard = this.listeners;
		boolean timesHeard = !heard.isEmpty();
		long now = timesHeard ? clock() : 0L;
		Ticket ticket = new Ticket(this, reservation, waiter, heard, now);
		this.lock.lock();
		try {
			if (this.closed) {
				throw closed(path);
			}
			Reservation owner = reservation.queue.isEmpty() ? this.permits.freePermitFor(reservation) : null;
			if (owner != null) {
				this.permits.grant(ticket, owner, now);
				ticket.admission = Admission.GRANTED;
			}
			else {
				queueOrReject(reservation, ticket, timesHeard, now);
			}
		}
		finally {
			this.lock.unlock();
		}
		if (timesHeard) {
			// Unheard, there is no one to tell, and a queued ticket's end is never left
			// to this thread (Ticket#queuedReported).
			reportAdmission(ticket, heard, path);
		}
		return ticket;
	}

	private static IllegalStateException closed(String path) {
		return new IllegalStateException("the fence is closed: no task of path '" + path + "' is admitted");
	}

	/** A ticket that cannot be granted at once waits, or is refused; under the lock. */
	private void queueOrReject(Reservation reservation, Ticket ticket, boolean timesHeard, long now) {
		// A removed path's task never waits: nothing would ever grant it.
		if (!reservation.removed && reservation.queue.size() < reservation.maxQueue) {
			ticket.state = Ticket.State.WAITING;
			ticket.admission = Admission.QUEUED;
			// Unheard, the clock is read only for a wait that has a deadline: most
			// tasks are granted at once and need none.
			this.timer.enqueue(reservation, ticket, (timesHeard || reservation.queueTimeoutNanos == 0) ? now : clock());
		}
		else {
			ticket.state = Ticket.State.REJECTED;
			ticket.admission = Admission.REJECTED;
		}
	}

	/** Tells the listeners how a ticket was admitted; outside the lock. */
	private void reportAdmission(Ticket ticket, Listeners heard, String path) {
		try {
			switch (ticket.admission) {
				case GRANTED -> heard.granted(path, 0);
				case REJECTED -> heard.rejected(path, RejectionReason.QUEUE_FULL, 0);
				case QUEUED -> {
					heard.queued(path);
					if (ticket.queuedReported()) {
						this.outcomes.endedBeforeReported(ticket);
					}
				}
			}
		}
		catch (VirtualMachineError fatal) {
			// A listener failed fatally before the caller got its ticket: the caller
			// cannot release a permit or cancel a wait it never heard of, so the ticket
			// is taken back here.
			takeBack(ticket);
			throw fatal;
		}
	}

	/**
	 * Takes back a ticket whose acquire failed: out of its queue, or its permit released
	 * if granted meanwhile. Its waiter hears nothing more; a permit granted to it while
	 * the acquiring thread was to tell of the grant was not told either.
	 */
	private void takeBack(Ticket ticket) {
		if (ticket.admission == Admission.QUEUED && ticket.cancel()) {
			return;
		}
		ticket.release();
	}

	boolean release(Ticket ticket) {
		long now = now();
		Ticket next;
		this.lock.lock();
		try {
			if (ticket.state != Ticket.State.GRANTED) {
				return false;
			}
			next = this.permits.giveBack(ticket, now);
		}
		finally {
			this.lock.unlock();
		}
		try {
			ticket.listeners.released(ticket.path.name, now - ticket.waitEndedNanos);
		}
		finally {
			if (next != null) {
				this.outcomes.granted(next);
			}
		}
		return true;
	}

	boolean cancel(Ticket ticket) {
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
		if (ticket.mayTellOfEnd()) {
			ticket.listeners.dequeued(ticket.path.name);
		}
		return true;
	}

	/**
	 * Takes every waiting ticket whose waiter matches out of its queue, as
	 * {@link Ticket#cancel()} does: a client that shuts down takes back the work it
	 * queued. Returns their waiters, in queue order, path by path. The predicate runs
	 * outside the fence's lock, on the tickets waiting when the call began; if it throws,
	 * nothing is taken.
	 */
	public List<Waiter> cancelWaiting(Predicate<? super Waiter> whose) {
		List<Ticket> waiting = new ArrayList<>();
		this.lock.lock();
		try {
			for (Reservation reservation : this.permits.all) {
				for (Ticket ticket = reservation.queue.peek(); ticket != null; ticket = ticket.next) {
					waiting.add(ticket);
				}
			}
		}
		finally {
			this.lock.unlock();
		}
		List<Ticket> matching = new ArrayList<>();
		for (Ticket ticket : waiting) {
			if (whose.test(ticket.waiter)) {
				matching.add(ticket);
			}
		}
		List<Ticket> cancelled = new ArrayList<>(matching.size());
		this.lock.lock();
		try {
			for (Ticket ticket : matching) {
				// Granted or expired meanwhile: its waiter is told as usual.
				if (ticket.state == Ticket.State.WAITING) {
					ticket.path.queue.remove(ticket);
					ticket.state = Ticket.State.CANCELLED;
					cancelled.add(ticket);
				}
			}
		}
		finally {
			this.lock.unlock();
		}
		List<Waiter> waiters = new ArrayList<>(cancelled.size());
		for (Ticket ticket : cancelled) {
			if (ticket.mayTellOfEnd()) {
				ticket.listeners.dequeued(ticket.path.name);
			}
			waiters.add(ticket.waiter);
		}
		return waiters;
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
		if (permits > this.permits.poolSize) {
			throw new IllegalArgumentException("path '" + path + "' would hold " + permits
					+ " permits, more than the pool of " + this.permits.poolSize);
		}
		if (reservation.local && this.localIsRemainder) {
			throw new IllegalArgumentException("the local reservation takes what the paths leave of the pool; "
					+ "size it explicitly to resize it");
		}
		List<Ticket> granted = new ArrayList<>();
		long now = now();
		this.lock.lock();
		try {
			Reservation local = this.permits.local;
			long paths = this.permits.sumOfPaths() - (reservation.local ? 0 : reservation.permits)
					+ (reservation.local ? 0 : permits);
			this.permits.checkFits(paths + (this.localIsRemainder ? 0 : (reservation.local ? permits : local.permits)));
			reservation.permits = permits;
			if (this.localIsRemainder) {
				local.permits = this.permits.poolSize - (int) paths;
			}
			this.permits.handOnAll(reservation, now, granted);
			this.permits.handOnAll(local, now, granted);
		}
		finally {
			this.lock.unlock();
		}
		tellEach(granted);
	}

	/**
	 * Adds a path reservation at run time, its permits taken from the local reservation.
	 * No running task is disturbed: local tasks holding permits above the local
	 * reservation's new size keep them, and those permits retire as the tasks finish, so
	 * the permits held never outnumber the pool. A waiting local task may borrow from the
	 * new path at once. Listeners hear {@link PathFenceListener#onPathAdded} on the
	 * calling thread once the path takes tasks; a task of the new path acquired on
	 * another thread meanwhile may be heard of first.
	 * @param queueTimeout how long a task of the path may wait; zero for no limit
	 * @throws IllegalArgumentException if the name is blank, {@link #LOCAL} or taken, the
	 * numbers negative, or the permits more than the local reservation has
	 * @throws IllegalStateException if the fence is closed
	 */
	public void addPath(String name, int permits, int maxQueue, Duration queueTimeout) {
		PathFenceBuilder.PathSpec spec = PathFenceBuilder.spec(name, permits, maxQueue, queueTimeout);
		List<Ticket> granted = new ArrayList<>();
		Listeners heard;
		this.lock.lock();
		try {
			if (this.closed) {
				throw new IllegalStateException("the fence is closed: path '" + name + "' cannot be added");
			}
			if (this.reservations.containsKey(name)) {
				throw new IllegalArgumentException("path '" + name + "' exists already");
			}
			Reservation local = this.permits.local;
			if (permits > local.permits) {
				throw new IllegalArgumentException("path '" + name + "' asks for " + permits
						+ " permits but the local reservation has " + local.permits + " to give");
			}
			Reservation path = new Reservation(this, name, false, permits, maxQueue, spec.timeoutNanos());
			local.permits -= permits;
			this.permits.add(path);
			Map<String, Reservation> byName = new LinkedHashMap<>(this.reservations);
			byName.remove(LOCAL);
			byName.put(name, path);
			byName.put(LOCAL, local);
			this.reservations = Collections.unmodifiableMap(byName);
			this.timer.laneAdded();
			// Local tasks waiting for a permit while the pool has room may borrow the
			// new path's at once.
			this.permits.handOnAll(path, now(), granted);
			heard = this.listeners;
		}
		finally {
			this.lock.unlock();
		}
		// Waiters first: a listener that blocks must not keep granted tasks waiting.
		try {
			tellEach(granted);
		}
		finally {
			heard.pathAdded(name, permits);
		}
	}

	/**
	 * Removes a path reservation at run time; its permits go back to the local
	 * reservation. No running task is disturbed: tasks holding the path's permits keep
	 * them, and those permits retire as the tasks finish, so the permits held never
	 * outnumber the pool. Tasks waiting for the path are not left stranded: each expires
	 * now, as if its queue timeout had passed, and its waiter is told so. A task of the
	 * path acquired from now on is refused as unknown, or, if it looked the path up
	 * before it went, turned away as if its queue were full. Listeners hear
	 * {@link PathFenceListener#onPathRemoved} on the calling thread, after the waiters
	 * are told.
	 * @throws IllegalArgumentException if no path reservation has that name, or it is
	 * {@link #LOCAL}
	 * @throws IllegalStateException if the fence is closed
	 */
	public void removePath(String name) {
		remove(name, false);
	}

	/**
	 * Removes a path reservation at run time as {@link #removePath} does, but only if no
	 * task of the path runs or waits now: a path still in use is kept. The check and the
	 * removal are one step, so no task of the path can start waiting in between and be
	 * turned away by the removal.
	 * @return whether the path was removed
	 * @throws IllegalArgumentException if no path reservation has that name, or it is
	 * {@link #LOCAL}
	 * @throws IllegalStateException if the fence is closed
	 */
	public boolean removePathIfIdle(String name) {
		return remove(name, true);
	}

	private boolean remove(String name, boolean onlyIfIdle) {
		if (LOCAL.equals(name)) {
			throw new IllegalArgumentException("the local reservation cannot be removed");
		}
		Reservation path = reservation(name);
		List<Ticket> granted = new ArrayList<>();
		List<ExpiryLane> toStart;
		Listeners heard;
		int permits;
		long now = now();
		this.lock.lock();
		try {
			if (this.closed) {
				throw new IllegalStateException("the fence is closed: path '" + name + "' cannot be removed");
			}
			if (this.reservations.get(name) != path) {
				throw new IllegalArgumentException("path '" + name + "' was removed already");
			}
			if (onlyIfIdle && (path.active > 0 || !path.queue.isEmpty())) {
				return false;
			}
			permits = path.permits;
			path.removed = true;
			path.permits = 0;
			this.permits.remove(path);
			Reservation local = this.permits.local;
			local.permits = this.localIsRemainder ? this.permits.poolSize - (int) this.permits.sumOfPaths()
					: local.permits + permits;
			Map<String, Reservation> byName = new LinkedHashMap<>(this.reservations);
			byName.remove(name);
			this.reservations = Collections.unmodifiableMap(byName);
			toStart = this.timer.expireWaiting(path, now);
			this.permits.handOnAll(local, now, granted);
			heard = this.listeners;
		}
		finally {
			this.lock.unlock();
		}
		// Waiters first: a listener that blocks must not hold back the expiry of the
		// path's waiters nor the local tasks granted its permits.
		try {
			if (!toStart.isEmpty()) {
				this.timer.start(toStart);
			}
		}
		finally {
			try {
				tellEach(granted);
			}
			finally {
				heard.pathRemoved(name, permits);
			}
		}
		return true;
	}

	/**
	 * Tells each granted waiter, even if one before it fails: a waiter left untold would
	 * hold its permit for good. The first failure is thrown once all are told.
	 */
	private void tellEach(List<Ticket> granted) {
		Throwable failure = null;
		for (Ticket ticket : granted) {
			try {
				this.outcomes.granted(ticket);
			}
			catch (RuntimeException | Error ex) {
				if (failure == null) {
					failure = ex;
				}
			}
		}
		if (failure instanceof RuntimeException ex) {
			throw ex;
		}
		if (failure instanceof Error err) {
			throw err;
		}
	}

	/** A consistent snapshot of every reservation, paths first, local last. */
	public List<PathFigures> figures() {
		this.lock.lock();
		try {
			List<PathFigures> figures = new ArrayList<>(this.permits.all.length);
			for (Reservation reservation : this.permits.all) {
				figures.add(reservation.figures());
			}
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

	/**
	 * Closes the fence: no task is admitted any more, and every task still waiting
	 * expires now, as if its queue timeout had passed, so nothing waits for a timer that
	 * no longer runs. Permits still held may be released as usual. Stops the timer
	 * thread; the expiry threads end once they have told the waiters.
	 */
	@Override
	public void close() {
		List<ExpiryLane> toStart;
		this.lock.lock();
		try {
			if (this.closed) {
				return;
			}
			this.closed = true;
			toStart = this.timer.expireAll(now());
		}
		finally {
			this.lock.unlock();
		}
		if (!toStart.isEmpty()) {
			this.timer.start(toStart);
		}
		this.timer.stop();
	}

	long clock() {
		return this.nanoClock.getAsLong();
	}

	/** The clock when anyone hears times; otherwise it is not read at all. */
	long now() {
		return this.listeners.isEmpty() ? 0L : clock();
	}

	private Reservation reservation(String path) {
		Reservation reservation = this.reservations.get(path);
		if (reservation == null) {
			throw new IllegalArgumentException(
					"unknown path '" + path + "'; known paths: " + this.reservations.keySet());
		}
		return reservation;
	}

}
