package io.pathfence.core;

/** Why a task of a path was turned away instead of run. */
public enum RejectionReason {

	/** The path's wait queue was full when the task arrived. */
	QUEUE_FULL("queue-full"),

	/** The task waited its path's whole queue timeout without being granted a permit. */
	TIMEOUT("timeout");

	private final String tag;

	RejectionReason(String tag) {
		this.tag = tag;
	}

	/** The value used for the {@code reason} tag of metrics and in error responses. */
	public String tag() {
		return this.tag;
	}

}
