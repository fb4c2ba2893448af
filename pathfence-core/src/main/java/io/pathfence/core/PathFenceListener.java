package io.pathfence.core;

/**
 * Hears what happens at a fence, for metrics and tuning. Register one with
 * {@link PathFence#addListener}; a ticket's events go to the listeners registered when it
 * was acquired.
 * <p>
 * Called outside the fence's lock on the thread that caused the event: the acquiring
 * thread ({@code onQueued}, a grant or a rejection on arrival), the thread that freed a
 * permit ({@code onReleased}, and the grant and {@code onDequeued} of the task it went
 * to), or one of the fence's expiry threads (a timeout's {@code onDequeued} and
 * {@code onRejected}), or the thread that added or removed a path ({@code onPathAdded},
 * {@code onPathRemoved}); never the timer thread. A ticket's events arrive in the order
 * of its life: {@code onQueued} before {@code onDequeued}, which comes before
 * {@code onGranted} or {@code onRejected}. Implementations must be thread-safe and quick;
 * one that throws is logged and skipped.
 */
public interface PathFenceListener {

	/** A task of {@code path} started waiting in its queue. */
	default void onQueued(String path) {
	}

	/**
	 * A task of {@code path} that was {@link #onQueued queued} left its queue: granted,
	 * timed out or cancelled.
	 */
	default void onDequeued(String path) {
	}

	/**
	 * A task of {@code path} was granted a permit after waiting {@code waitNanos} (0 when
	 * it never queued).
	 */
	default void onGranted(String path, long waitNanos) {
	}

	/**
	 * A task of {@code path} released its permit after holding it {@code serviceNanos}.
	 */
	default void onReleased(String path, long serviceNanos) {
	}

	/**
	 * A task of {@code path} was turned away after waiting {@code waitNanos}: 0 when its
	 * queue was full on arrival, about the queue timeout when it timed out.
	 */
	default void onRejected(String path, RejectionReason reason, long waitNanos) {
	}

	/**
	 * A path reservation of {@code permits} was added at run time
	 * ({@link PathFence#addPath}); from now on its tasks are admitted.
	 */
	default void onPathAdded(String path, int permits) {
	}

	/**
	 * A path reservation that had {@code permits} was removed at run time
	 * ({@link PathFence#removePath}): its permits went back to the local reservation, and
	 * only the releases of its tasks still running may follow.
	 */
	default void onPathRemoved(String path, int permits) {
	}

}
