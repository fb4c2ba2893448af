package io.pathfence.core;

/**
 * Hears what happens at a fence, for metrics and tuning. Called outside the fence's lock,
 * from whichever thread caused the event; implementations must be thread-safe and quick.
 */
public interface PathFenceListener {

	/** A listener that ignores everything. */
	PathFenceListener NONE = new PathFenceListener() {
	};

	/** A task of {@code path} started waiting in its queue. */
	default void onQueued(String path) {
	}

	/**
	 * A task of {@code path} left its queue: granted, expired or cancelled (reported
	 * before the grant).
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

	/** A task of {@code path} was turned away. */
	default void onRejected(String path, RejectionReason reason) {
	}

}
