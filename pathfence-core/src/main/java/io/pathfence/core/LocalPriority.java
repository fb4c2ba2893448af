package io.pathfence.core;

/**
 * Which waiting task a path's released permit goes to when both a local task and a task
 * of the path itself wait.
 */
public enum LocalPriority {

	/**
	 * Local tasks take a path's idle permits (free, with none of its own tasks waiting),
	 * but a released permit goes to its own path's next task first and is lent to a local
	 * task only when the path has none waiting. A flood of local work cannot take the
	 * permits a path's own tasks are waiting for. The default.
	 */
	IDLE_PERMITS,

	/**
	 * The paper's rule (Algorithm 1, lines 19-20): a released permit goes to a waiting
	 * local task first, even while its own path has tasks waiting. Local work never waits
	 * behind a path, but a flood of it holds a path's permits for as long as it lasts.
	 */
	STRICT

}
