package io.pathfence.core;

import java.util.Arrays;

/**
 * The listeners of a fence at one moment, each call contained: a listener that throws (a
 * user bean, a failing meter registry) is logged and skipped, so it can neither leak a
 * permit nor strand a task nor fail the caller. Immutable: adding a listener makes a new
 * set, and each ticket keeps the set it started with, so every listener hears all of a
 * ticket's events or none.
 */
final class Listeners {

	private static final System.Logger logger = System.getLogger(PathFence.class.getName());

	static final Listeners NONE = new Listeners(new Guarded[0]);

	private final Guarded[] each;

	private Listeners(Guarded[] each) {
		this.each = each;
	}

	Listeners with(PathFenceListener listener) {
		Guarded[] more = Arrays.copyOf(this.each, this.each.length + 1);
		more[this.each.length] = new Guarded(listener);
		return new Listeners(more);
	}

	boolean isEmpty() {
		return this.each.length == 0;
	}

	void queued(String path) {
		for (Guarded listener : this.each) {
			try {
				listener.delegate.onQueued(path);
			}
			catch (RuntimeException | Error ex) {
				listener.failed("onQueued", ex);
			}
		}
	}

	void dequeued(String path) {
		for (Guarded listener : this.each) {
			try {
				listener.delegate.onDequeued(path);
			}
			catch (RuntimeException | Error ex) {
				listener.failed("onDequeued", ex);
			}
		}
	}

	void granted(String path, long waitNanos) {
		for (Guarded listener : this.each) {
			try {
				listener.delegate.onGranted(path, waitNanos);
			}
			catch (RuntimeException | Error ex) {
				listener.failed("onGranted", ex);
			}
		}
	}

	void released(String path, long serviceNanos) {
		for (Guarded listener : this.each) {
			try {
				listener.delegate.onReleased(path, serviceNanos);
			}
			catch (RuntimeException | Error ex) {
				listener.failed("onReleased", ex);
			}
		}
	}

	void rejected(String path, RejectionReason reason, long waitNanos) {
		for (Guarded listener : this.each) {
			try {
				listener.delegate.onRejected(path, reason, waitNanos);
			}
			catch (RuntimeException | Error ex) {
				listener.failed("onRejected", ex);
			}
		}
	}

	void pathAdded(String path, int permits) {
		for (Guarded listener : this.each) {
			try {
				listener.delegate.onPathAdded(path, permits);
			}
			catch (RuntimeException | Error ex) {
				listener.failed("onPathAdded", ex);
			}
		}
	}

	void pathRemoved(String path, int permits) {
		for (Guarded listener : this.each) {
			try {
				listener.delegate.onPathRemoved(path, permits);
			}
			catch (RuntimeException | Error ex) {
				listener.failed("onPathRemoved", ex);
			}
		}
	}

	/**
	 * One listener, with whether it has failed before: its first failure is logged with
	 * the stack trace, later ones only at debug level, so a broken meter registry does
	 * not write a stack trace per request.
	 */
	private static final class Guarded {

		final PathFenceListener delegate;

		private volatile boolean failedBefore;

		Guarded(PathFenceListener delegate) {
			this.delegate = delegate;
		}

		void failed(String event, Throwable failure) {
			if (failure instanceof VirtualMachineError fatal) {
				throw fatal;
			}
			String message = "PathFence listener " + this.delegate + " failed in " + event
					+ "; the fence goes on without it for this event";
			if (!this.failedBefore) {
				this.failedBefore = true;
				logger.log(System.Logger.Level.WARNING, message + " (later failures are logged at debug level)",
						failure);
			}
			else {
				logger.log(System.Logger.Level.DEBUG, message, failure);
			}
		}

	}

}
