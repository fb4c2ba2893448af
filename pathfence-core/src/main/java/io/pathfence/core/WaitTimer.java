package io.pathfence.core;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;

/**
 * Ends waits that outlast their path's queue timeout. A path's timeout is fixed, so its
 * tickets expire in the order they queued: the timer watches the head of each queue and
 * sleeps until the earliest one is due. A ticket that is granted or cancelled simply
 * leaves its queue; no timer of its own is left behind.
 * <p>
 * One daemon thread, {@code pathfence-wait-timer}, started at the first timed wait, runs
 * no code but the fence's: it takes expired tickets out of their queues under the lock
 * and hands them to their path's {@link ExpiryLane}. The lanes run on up to one
 * {@code pathfence-expiry} thread per reservation, so each path always has a thread for
 * its expiries; those threads end when idle.
 */
final class WaitTimer {

	private static final System.Logger logger = System.getLogger(PathFence.class.getName());

	private static final long IDLE_THREAD_KEEP_ALIVE_SECONDS = 10;

	/**
	 * How long the timer pauses after a failure of its own (a clock that threw, no thread
	 * for a lane), so that one that persists does not spin a core.
	 */
	private static final long FAILURE_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

	private final PathFence fence;

	private final Condition due;

	/** The rest guarded by the fence's lock. */
	private Thread thread;

	private ThreadPoolExecutor expiryThreads;

	private boolean sleeping;

	private boolean sleepsUntilWoken;

	private long wakeAt;

	private boolean failedBefore;

	WaitTimer(PathFence fence) {
		this.fence = fence;
		this.due = fence.lock.newCondition();
	}

	/** Queues a ticket with its deadline, if its path has one. Called under the lock. */
	void enqueue(Reservation reservation, Ticket ticket, long now) {
		if (reservation.queueTimeoutNanos != 0) {
			long deadline = now + reservation.queueTimeoutNanos;
			Ticket last = reservation.queue.last();
			// Clocks read just before the lock can be out of queue order by a little;
			// deadlines must not be, or the timer, which watches the head, would miss
			// one.
			if (last != null && last.deadline - deadline > 0) {
				deadline = last.deadline;
			}
			ticket.deadline = deadline;
			waitsUntil(deadline);
		}
		reservation.queue.add(ticket);
	}

	/** Expires every waiting ticket, for a fence that closes. Called under the lock. */
	List<ExpiryLane> expireAll(long now) {
		List<ExpiryLane> toStart = new ArrayList<>();
		for (Reservation reservation : this.fence.permits.all) {
			Ticket waiting;
			while ((waiting = reservation.queue.peek()) != null) {
				expire(waiting, now, toStart);
			}
		}
		return toStart;
	}

	/**
	 * Expires every waiting ticket of one reservation, for a path that is removed. Called
	 * under the lock.
	 */
	List<ExpiryLane> expireWaiting(Reservation reservation, long now) {
		List<ExpiryLane> toStart = new ArrayList<>();
		Ticket waiting;
		while ((waiting = reservation.queue.peek()) != null) {
			expire(waiting, now, toStart);
		}
		return toStart;
	}

	/**
	 * Takes a waiting ticket out of its queue as expired and into its lane; a lane that
	 * must be started is added to {@code toStart}. Called under the lock.
	 */
	private void expire(Ticket ticket, long now, List<ExpiryLane> toStart) {
		ticket.path.queue.remove(ticket);
		ticket.state = Ticket.State.EXPIRED;
		ticket.waitEndedNanos = now;
		if (ticket.path.lane.add(ticket)) {
			toStart.add(ticket.path.lane);
		}
	}

	/** A ticket now waits until {@code deadline}. Called under the lock. */
	private void waitsUntil(long deadline) {
		if (this.thread == null) {
			this.thread = new Thread(this::run, "pathfence-wait-timer");
			this.thread.setDaemon(true);
			this.thread.start();
		}
		else if (this.sleeping && (this.sleepsUntilWoken || deadline - this.wakeAt < 0)) {
			this.due.signal();
		}
	}

	/**
	 * Keeps a thread for every lane once a reservation is added. Called under the lock.
	 */
	void laneAdded() {
		if (this.expiryThreads != null) {
			// Never fewer: a removed path's lane may still be delivering its expiries.
			int lanes = Math.max(this.fence.permits.all.length, this.expiryThreads.getMaximumPoolSize());
			this.expiryThreads.setMaximumPoolSize(lanes);
			this.expiryThreads.setCorePoolSize(lanes);
		}
	}

	/**
	 * Starts the lanes' runners, taking each out of {@code lanes} once it is on its way:
	 * if starting one fails, those left are still to start. Called outside the lock;
	 * after {@link #stop()} the lanes are run on the calling thread.
	 */
	void start(List<ExpiryLane> lanes) {
		ThreadPoolExecutor threads = expiryThreads();
		while (!lanes.isEmpty()) {
			ExpiryLane lane = lanes.get(lanes.size() - 1);
			try {
				threads.execute(lane);
			}
			catch (java.util.concurrent.RejectedExecutionException ex) {
				lanes.remove(lanes.size() - 1);
				lane.run();
				continue;
			}
			lanes.remove(lanes.size() - 1);
		}
	}

	/**
	 * Stops the timer thread, waits for it to end, and lets the expiry threads end once
	 * their lanes are delivered. Called outside the lock, after the fence was marked
	 * closed.
	 */
	void stop() {
		Thread timer;
		ThreadPoolExecutor threads;
		this.fence.lock.lock();
		try {
			this.due.signal();
			timer = this.thread;
			threads = this.expiryThreads;
		}
		finally {
			this.fence.lock.unlock();
		}
		if (timer != null && timer != Thread.currentThread()) {
			try {
				timer.join(TimeUnit.SECONDS.toMillis(10));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		if (threads != null) {
			threads.shutdown();
		}
	}

	private ThreadPoolExecutor expiryThreads() {
		this.fence.lock.lock();
		try {
			if (this.expiryThreads == null) {
				// One thread per reservation at most: a lane runs on one thread at a
				// time,
				// so every lane with news finds a thread, and a slow one holds only its
				// own.
				int lanes = this.fence.permits.all.length;
				AtomicInteger count = new AtomicInteger();
				this.expiryThreads = new ThreadPoolExecutor(lanes, lanes, IDLE_THREAD_KEEP_ALIVE_SECONDS,
						TimeUnit.SECONDS, new LinkedBlockingQueue<>(), (runnable) -> {
							Thread thread = new Thread(runnable, "pathfence-expiry-" + count.incrementAndGet());
							thread.setDaemon(true);
							return thread;
						});
				this.expiryThreads.allowCoreThreadTimeOut(true);
			}
			return this.expiryThreads;
		}
		finally {
			this.fence.lock.unlock();
		}
	}

	/**
	 * The timer's loop. It ends only when the fence closes: a failure (the clock threw, a
	 * lane could not be started) is logged and the loop goes on after a pause, with the
	 * lanes not yet started still to start, since every path's timeouts depend on this
	 * one thread.
	 */
	private void run() {
		List<ExpiryLane> toStart = new ArrayList<>();
		this.fence.lock.lock();
		try {
			while (!this.fence.closed) {
				try {
					expireDue(toStart);
				}
				catch (RuntimeException | Error ex) {
					failed(ex);
				}
			}
		}
		finally {
			// Should the loop end anyway, the next timed wait starts a new timer.
			if (!this.fence.closed && this.thread == Thread.currentThread()) {
				this.thread = null;
			}
			this.fence.lock.unlock();
		}
	}

	/**
	 * Expires the tickets that are due and starts their lanes, or sleeps until the next
	 * is due. Called, and returns or throws, under the lock.
	 */
	private void expireDue(List<ExpiryLane> toStart) {
		long now = this.fence.clock();
		boolean waiting = false;
		long earliest = 0;
		for (Reservation reservation : this.fence.permits.all) {
			if (reservation.queueTimeoutNanos == 0) {
				continue;
			}
			Ticket head;
			while ((head = reservation.queue.peek()) != null && head.deadline - now <= 0) {
				expire(head, now, toStart);
			}
			if (head != null && (!waiting || head.deadline - earliest < 0)) {
				waiting = true;
				earliest = head.deadline;
			}
		}
		if (!toStart.isEmpty()) {
			this.fence.lock.unlock();
			try {
				start(toStart);
			}
			finally {
				this.fence.lock.lock();
			}
			return;
		}
		sleep(waiting, earliest, now);
	}

	/** Logs a failure of the timer's loop and pauses. Called under the lock. */
	private void failed(Throwable failure) {
		String message = "The PathFence wait timer failed; it goes on";
		if (!this.failedBefore) {
			this.failedBefore = true;
			logger.log(System.Logger.Level.WARNING, message + " (later failures are logged at debug level)", failure);
		}
		else {
			logger.log(System.Logger.Level.DEBUG, message, failure);
		}
		try {
			this.due.awaitNanos(FAILURE_PAUSE_NANOS);
		}
		catch (InterruptedException ex) {
			// Only close() ends the timer.
		}
	}

	private void sleep(boolean waiting, long earliest, long now) {
		this.sleeping = true;
		this.sleepsUntilWoken = !waiting;
		this.wakeAt = earliest;
		try {
			if (waiting) {
				this.due.awaitNanos(earliest - now);
			}
			else {
				this.due.await();
			}
		}
		catch (InterruptedException ex) {
			// Only close() ends the timer; a stray interrupt just wakes it early.
		}
		finally {
			this.sleeping = false;
		}
	}

}
