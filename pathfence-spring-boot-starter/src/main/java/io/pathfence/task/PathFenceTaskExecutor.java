package io.pathfence.task;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;

import org.springframework.core.task.AsyncTaskExecutor;
import org.springframework.core.task.TaskDecorator;
import org.springframework.core.task.TaskRejectedException;
import org.springframework.util.Assert;

import io.pathfence.core.Admission;
import io.pathfence.core.PathFence;
import io.pathfence.core.RejectionReason;
import io.pathfence.core.Ticket;
import io.pathfence.core.WaitTimer;

/**
 * An {@link AsyncTaskExecutor} whose worker threads are fenced by path: a task runs only once its path's
 * reservation grants it a permit, and until then it waits in the path's queue, not on a thread. A task submitted
 * without a path goes to the path of the submitting thread ({@link CurrentPath}), else to the local reservation.
 * <p>
 * The {@link TaskDecorator} is applied when the task is submitted, on the submitting thread, so context such as
 * the MDC and the current observation is captured there, not on whichever thread later frees the permit.
 */
public class PathFenceTaskExecutor implements AsyncTaskExecutor {

	private final PathFence fence;

	private final Executor workers;

	private final WaitTimer waitTimer;

	private final TaskDecorator taskDecorator;

	/**
	 * @param fence the reservations
	 * @param workers the threads that run granted tasks; they must be able to run as many tasks at once as the
	 * fence's pool has permits, or granted tasks wait again in the workers' own queue
	 * @param waitTimer expires tasks that wait past their path's queue timeout
	 * @param taskDecorator decorates each task on the submitting thread, or {@code null}
	 */
	public PathFenceTaskExecutor(PathFence fence, Executor workers, WaitTimer waitTimer, TaskDecorator taskDecorator) {
		Assert.notNull(fence, "fence must not be null");
		Assert.notNull(workers, "workers must not be null");
		Assert.notNull(waitTimer, "waitTimer must not be null");
		this.fence = fence;
		this.workers = workers;
		this.waitTimer = waitTimer;
		this.taskDecorator = taskDecorator;
	}

	public PathFence getFence() {
		return this.fence;
	}

	public Executor getWorkers() {
		return this.workers;
	}

	@Override
	public void execute(Runnable task) {
		execute(CurrentPath.get(), task);
	}

	@Override
	public Future<?> submit(Runnable task) {
		return submit(CurrentPath.get(), task);
	}

	@Override
	public <T> Future<T> submit(Callable<T> task) {
		return submit(CurrentPath.get(), task);
	}

	@Override
	public CompletableFuture<Void> submitCompletable(Runnable task) {
		return submitCompletable(CurrentPath.get(), () -> {
			task.run();
			return null;
		});
	}

	@Override
	public <T> CompletableFuture<T> submitCompletable(Callable<T> task) {
		return submitCompletable(CurrentPath.get(), task);
	}

	/**
	 * Runs {@code task} on a permit of {@code path}.
	 * @throws PathRejectedException if the path's queue is full
	 * @throws IllegalArgumentException if the path is unknown
	 */
	public void execute(String path, Runnable task) {
		Assert.notNull(task, "task must not be null");
		admit(path, task, null);
	}

	/** Like {@link #execute(String, Runnable)}, with a future that a queue timeout fails. */
	public Future<?> submit(String path, Runnable task) {
		FencedFuture<Object> future = new FencedFuture<>(path, task, null);
		admit(path, future, future);
		return future;
	}

	/** Like {@link #execute(String, Runnable)}, with a future that a queue timeout fails. */
	public <T> Future<T> submit(String path, Callable<T> task) {
		FencedFuture<T> future = new FencedFuture<>(path, task);
		admit(path, future, future);
		return future;
	}

	/** Like {@link #submit(String, Callable)}, with a {@link CompletableFuture}. */
	public <T> CompletableFuture<T> submitCompletable(String path, Callable<T> task) {
		CompletableFuture<T> result = new CompletableFuture<>();
		Runnable body = () -> {
			try {
				result.complete(task.call());
			}
			catch (Throwable ex) {
				result.completeExceptionally(ex);
			}
		};
		admit(path, body, (reason) -> result.completeExceptionally(new PathRejectedException(path, reason)));
		return result;
	}

	private void admit(String path, Runnable task, Rejectable onTimeout) {
		Runnable decorated = (this.taskDecorator != null) ? this.taskDecorator.decorate(task) : task;
		Ticket ticket = this.fence.acquire(path, (granted) -> dispatch(granted, decorated, onTimeout));
		Admission admission = ticket.admission();
		if (admission == Admission.GRANTED) {
			if (!dispatch(ticket, decorated, onTimeout)) {
				throw new TaskRejectedException("Workers of path '" + path + "' did not accept the task");
			}
		}
		else if (admission == Admission.REJECTED) {
			throw new PathRejectedException(path, RejectionReason.QUEUE_FULL);
		}
		else {
			Future<?> timeout = this.waitTimer.expireLater(ticket, () -> {
				if (onTimeout != null) {
					onTimeout.reject(RejectionReason.TIMEOUT);
				}
			});
			if (timeout != null) {
				// Granted tasks need no timeout; keep the timer from holding them until it fires.
				ticket.attachTimeout(timeout);
			}
		}
	}

	/**
	 * Hands a granted task to a worker. Returns {@code false} when the workers refuse it (they are shutting
	 * down): the permit is given back at once and the task's future, if any, fails.
	 */
	private boolean dispatch(Ticket ticket, Runnable task, Rejectable onFailure) {
		ticket.cancelTimeout();
		String path = ticket.path();
		try {
			this.workers.execute(() -> {
				String previous = CurrentPath.enter(path);
				try {
					task.run();
				}
				finally {
					CurrentPath.restore(previous);
					ticket.release();
				}
			});
			return true;
		}
		catch (RejectedExecutionException ex) {
			ticket.release();
			if (onFailure != null) {
				onFailure.reject(RejectionReason.QUEUE_FULL);
			}
			return false;
		}
	}

	/** Something to fail when a task is turned away after it was accepted. */
	@FunctionalInterface
	private interface Rejectable {

		void reject(RejectionReason reason);

	}

	/** A future that a queue timeout can fail with the path's rejection. */
	private static final class FencedFuture<T> extends FutureTask<T> implements Rejectable {

		private final String path;

		FencedFuture(String path, Callable<T> callable) {
			super(callable);
			this.path = path;
		}

		FencedFuture(String path, Runnable runnable, T result) {
			super(runnable, result);
			this.path = path;
		}

		@Override
		public void reject(RejectionReason reason) {
			setException(new PathRejectedException(this.path, reason));
		}

	}

}
