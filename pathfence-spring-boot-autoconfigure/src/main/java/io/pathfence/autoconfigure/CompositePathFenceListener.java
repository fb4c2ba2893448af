package io.pathfence.autoconfigure;

import java.util.List;

import io.pathfence.core.PathFenceListener;
import io.pathfence.core.RejectionReason;

/** Lets metrics and tuning listen to the same fence. */
final class CompositePathFenceListener implements PathFenceListener {

	private final PathFenceListener[] listeners;

	private CompositePathFenceListener(List<PathFenceListener> listeners) {
		this.listeners = listeners.toArray(new PathFenceListener[0]);
	}

	static PathFenceListener of(List<PathFenceListener> listeners) {
		if (listeners.isEmpty()) {
			return PathFenceListener.NONE;
		}
		return (listeners.size() == 1) ? listeners.get(0) : new CompositePathFenceListener(listeners);
	}

	@Override
	public void onQueued(String path) {
		for (PathFenceListener listener : this.listeners) {
			listener.onQueued(path);
		}
	}

	@Override
	public void onDequeued(String path) {
		for (PathFenceListener listener : this.listeners) {
			listener.onDequeued(path);
		}
	}

	@Override
	public void onGranted(String path, long waitNanos) {
		for (PathFenceListener listener : this.listeners) {
			listener.onGranted(path, waitNanos);
		}
	}

	@Override
	public void onReleased(String path, long serviceNanos) {
		for (PathFenceListener listener : this.listeners) {
			listener.onReleased(path, serviceNanos);
		}
	}

	@Override
	public void onRejected(String path, RejectionReason reason) {
		for (PathFenceListener listener : this.listeners) {
			listener.onRejected(path, reason);
		}
	}

}
