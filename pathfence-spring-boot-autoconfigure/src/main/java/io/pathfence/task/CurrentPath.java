package io.pathfence.task;

import io.pathfence.core.PathFence;

/**
 * The path whose work the current thread is doing or handing off. Set around an inbound
 * request's handling and around calls to {@code @FencedPath} methods, and read when a
 * task is submitted without an explicit path, so work handed to the executor stays on the
 * path that caused it.
 */
public final class CurrentPath {

	private static final ThreadLocal<String> PATH = new ThreadLocal<>();

	private CurrentPath() {
	}

	/** The current path, or {@link PathFence#LOCAL} when none is set. */
	public static String get() {
		String path = PATH.get();
		return (path != null) ? path : PathFence.LOCAL;
	}

	/**
	 * Sets the current path and returns the previous one, to be given back to
	 * {@link #restore(String)}.
	 */
	public static String enter(String path) {
		String previous = PATH.get();
		PATH.set(path);
		return previous;
	}

	/** Restores what {@link #enter(String)} returned. */
	public static void restore(String previous) {
		// Set to null rather than removed: the thread's entry stays for its next request
		// instead of being made again for each one. It holds no value, and its key is the
		// JDK's own class, so a pooled thread keeps nothing of the application alive.
		PATH.set(previous);
	}

}
