package io.pathfence.task;

import org.springframework.core.task.TaskRejectedException;

import io.pathfence.core.RejectionReason;

/**
 * A task was turned away by its path's reservation: the path's queue was full, or the
 * task waited its whole queue timeout. Callers see Spring's usual
 * {@link TaskRejectedException}.
 */
public class PathRejectedException extends TaskRejectedException {

	private final String path;

	private final RejectionReason reason;

	public PathRejectedException(String path, RejectionReason reason) {
		super("Task of path '" + path + "' rejected: " + reason.tag());
		this.path = path;
		this.reason = reason;
	}

	public String getPath() {
		return this.path;
	}

	public RejectionReason getReason() {
		return this.reason;
	}

}
