package io.pathfence.core;

import java.util.concurrent.Future;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Ends waits that outlast their path's queue timeout. One daemon thread serves every
 * queue: it only expires tickets and hands a rejection on, so it never runs a task.
 */
public final class WaitTimer implements AutoCloseable {

	private final ScheduledThreadPoolExecutor scheduler;

	public WaitTimer() {
		this.scheduler = new ScheduledThreadPoolExecutor(1, (runnable) -> {
			Thread thread = new Thread(runnable, "pathfence-wait-timer");
			thread.setDaemon(true);
			return thread;
		});
		// Most waits end with a grant long before their timeout; keep the timer's queue
		// from filling with them.
		this.scheduler.setRemoveOnCancelPolicy(true);
	}

	/**
	 * Expires {@code ticket} after its path's queue timeout unless it is granted or
	 * cancelled first; when it does expire, {@code onExpired} runs. Returns a handle to
	 * cancel the timeout once the ticket is granted, or {@code null} when the path lets
	 * tasks wait without limit.
	 */
	public Future<?> expireLater(Ticket ticket, Runnable onExpired) {
		long timeoutNanos = ticket.queueTimeoutNanos();
		if (timeoutNanos <= 0) {
			return null;
		}
		return this.scheduler.schedule(() -> {
			if (ticket.expire()) {
				onExpired.run();
			}
		}, timeoutNanos, TimeUnit.NANOSECONDS);
	}

	@Override
	public void close() {
		this.scheduler.shutdownNow();
	}

}
