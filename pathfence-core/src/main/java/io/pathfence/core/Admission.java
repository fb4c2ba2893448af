package io.pathfence.core;

/**
 * What {@link PathFence#acquire} decided the moment a task arrived. It never changes
 * afterwards, unlike the ticket's state, so the caller can branch on it without racing
 * the thread that may grant a queued ticket.
 */
public enum Admission {

	/** A permit was free: run the task now. */
	GRANTED,

	/**
	 * The task waits in its path's queue; its grant listener is told when it gets a
	 * permit.
	 */
	QUEUED,

	/** The path's queue was full: the task must be turned away. */
	REJECTED

}
