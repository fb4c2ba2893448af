package io.pathfence.task;

import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.core.task.AsyncTaskExecutor;
import org.springframework.core.task.TaskDecorator;
import org.springframework.core.task.TaskRejectedException;
import org.springframework.util.Assert;

import io.pathfence.core.PathFence;
import io.pathfence.core.RejectionReason;
import io.pathfence.core.Ticket;
import io.pathfence.core.Waiter;

/**
 * An {@link AsyncTaskExecutor} whose worker threads are fenced by path: a task runs only
 * once its path's reservation grants it a permit, and until then it waits in the path's
 * queue, not on a thread. A task submitted without a path goes to the path of the
 * submitting thread ({@link CurrentPath}), else to the local reservation.
 * <p>
 * The {@link TaskDecorator} is applied when the task is submitted, on the submitting
 * thread, so context such as the MDC and the current observation is captured there, not
 * on whichever thread later frees the permit.
 * <p>
 * Where code runs: a task runs on a worker. A worker that finishes a task takes the next
 * task its permit goes to itself, except after a task with a {@link CompletableFuture}:
 * its dependents run on the worker after the permit was given back, and the next task is
 * handed to another worker so that it does not wait for them. A task that waits past its
 * queue timeout fails on the fence's expiry thread of its path; the dependents of its
 * {@code CompletableFuture} run on a worker. A worker clears its interrupt status between
 * tasks, as a thread pool does.
 * <p>
 * {@link #shutdown()} refuses new tasks and cancels those that have not started; running
 * tasks are left to the workers' own shutdown.
 */
public class PathFenceTaskExecutor implements AsyncTaskExecutor {

	private static final Log logger = LogFactory.getLog(PathFenceTaskExecutor.class);

	private final PathFence fence;

	private final Executor workers;

	private final TaskDecorator taskDecorator;

	private volatile boolean shutdown;

	/**
	 * Set on a thread about to submit a task that reports its own queue timeout (Spring
	 * MVC's task for an async handler); only that task takes it, not whatever else is
	 * submitted on the thread meanwhile.
	 */
	private static final ThreadLocal<Boolean> reportsTimeout = new ThreadLocal<>();

	/** The rejection under which a timed-out task runs to report its timeout. */
	private static final ThreadLocal<PathRejectedException> timedOut = new ThreadLocal<>();

	/**
	 * @param fence the reservations, which also time the waits
	 * @param workers the threads that run granted tasks; they must be able to run as many
	 * tasks at once as the fence's pool has permits, or granted tasks wait again in the
	 * workers' own queue. Tasks they drop at shutdown must be handed to
	 * {@link #abandon(Runnable)}, as {@link PathFenceWorkers} does
	 * @param taskDecorator decorates each task on the submitting thread, or {@code null}
	 */
	public PathFenceTaskExecutor(PathFence fence, Executor workers, TaskDecorator taskDecorator) {
		Assert.notNull(fence, "fence must not be null");
		Assert.notNull(workers, "workers must not be null");
		this.fence = fence;
		this.workers = workers;
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
		return submitCompletable(CurrentPath.get(), Executors.callable(task, null));
	}

	@Override
	public <T> CompletableFuture<T> submitCompletable(Callable<T> task) {
		return submitCompletable(CurrentPath.get(), task);
	}

	/**
	 * Runs {@code task} on a permit of {@code path}.
	 * @throws PathRejectedException if the path's queue is full
	 * @throws TaskRejectedException if the executor or its fence is shut down
	 * @throws IllegalArgumentException if the path is unknown
	 */
	public void execute(String path, Runnable task) {
		Assert.notNull(task, "task must not be null");
		admit(path, task, null, null);
	}

	/**
	 * Like {@link #execute(String, Runnable)}, with a future that a queue timeout fails.
	 */
	public Future<?> submit(String path, Runnable task) {
		FencedFuture<Object> future = new FencedFuture<>(path, Executors.callable(task), null);
		admit(path, future, future, task);
		return future;
	}

	/**
	 * Like {@link #execute(String, Runnable)}, with a future that a queue timeout fails.
	 */
	public <T> Future<T> submit(String path, Callable<T> task) {
		FencedFuture<T> future = new FencedFuture<>(path, task, null);
		admit(path, future, future, null);
		return future;
	}

	/** Like {@link #submit(String, Callable)}, with a {@link CompletableFuture}. */
	public <T> CompletableFuture<T> submitCompletable(String path, Callable<T> task) {
		CompletableFuture<T> result = new CompletableFuture<>();
		FencedFuture<T> future = new FencedFuture<>(path, task, result);
		admit(path, future, future, null);
		return result;
	}

	/**
	 * Refuses new tasks and cancels every task of this executor that waits for a permit;
	 * a granted task that has not started yet is cancelled when a worker would start it.
	 * Running tasks are not touched: the workers' own shutdown interrupts or awaits them.
	 */
	public void shutdown() {
		this.shutdown = true;
		List<Waiter> withdrawn = this.fence
			.cancelWaiting((waiter) -> waiter instanceof FencedRun run && run.executor() == this);
		for (Waiter waiter : withdrawn) {
			((FencedRun) waiter).cancelFuture();
		}
		if (!withdrawn.isEmpty()) {
			logger.info("Cancelled " + withdrawn.size() + " tasks that were waiting for a permit at shutdown");
		}
	}

	/**
	 * Marks the task Spring MVC submits next on this thread for an async handler as one
	 * that reports its own queue timeout: past the timeout it is run anyway, without a
	 * permit, while {@link #timedOut()} returns the rejection, and must then do nothing
	 * but report it. Spring MVC's task runs its {@code CallableProcessingInterceptor}s
	 * before the handler's callable, and one that throws the rejection becomes the
	 * request's result, so the client is answered at once rather than after the async
	 * request timeout. Any other task submitted on the thread meanwhile (by another
	 * interceptor, say) leaves the mark alone: run without a permit, its code would not
	 * know to stop.
	 */
	public static void nextHandlerTaskReportsItsTimeout() {
		reportsTimeout.set(Boolean.TRUE);
	}

	/** Clears a mark of {@link #nextHandlerTaskReportsItsTimeout()} that no task took. */
	public static void clearTimeoutReport() {
		reportsTimeout.remove();
	}

	/**
	 * On a task run only to report its queue timeout, the rejection; {@code null}
	 * otherwise.
	 */
	public static PathRejectedException timedOut() {
		return timedOut.get();
	}

	/**
	 * Cancels a granted task that the workers took but will not run (they shut down): its
	 * permit goes back and its future is cancelled. A queue timeout the workers were to
	 * report is reported here, on the calling thread, so its future does not stay
	 * pending. Returns whether it was a task of a {@code PathFenceTaskExecutor}.
	 */
	public static boolean abandon(Runnable task) {
		if (task instanceof FencedRun run) {
			run.abandon();
			return true;
		}
		if (task instanceof TimeoutReport report) {
			report.run();
			return true;
		}
		return false;
	}

	/**
	 * Reports a task's queue timeout on a worker; known by type, so that workers that
	 * drop it at shutdown can still report it.
	 */
	private static final class TimeoutReport implements Runnable {

		private final Runnable report;

		TimeoutReport(Runnable report) {
			this.report = report;
		}

		@Override
		public void run() {
			this.report.run();
		}

	}

	/**
	 * Whether Spring MVC's {@code WebAsyncManager} submitted this task, for the async
	 * handler of the request on this thread: the one task the mark of
	 * {@link #nextHandlerTaskReportsItsTimeout()} is meant for. Known by its class, a
	 * lambda or nested class of the manager, as its code is the manager's own.
	 */
	static boolean isAsyncHandlerTask(Runnable task) {
		return task.getClass().getName().startsWith(WEB_ASYNC_MANAGER_CLASSES);
	}

	private static final String WEB_ASYNC_MANAGER_CLASSES = "org.springframework.web.context.request.async.WebAsyncManager$";

	/**
	 * @param submitted the {@code Runnable} given to {@code submit}, which may be Spring
	 * MVC's task for an async handler; {@code null} for any other entry point
	 */
	private void admit(String path, Runnable task, FencedFuture<?> future, Runnable submitted) {
		if (this.shutdown) {
			throw new TaskRejectedException("Executor is shut down; a task of path '" + path + "' is refused");
		}
		boolean runsOnTimeout = reportsTimeout.get() != null && submitted != null && isAsyncHandlerTask(submitted);
		if (runsOnTimeout) {
			reportsTimeout.remove();
		}
		Runnable decorated = (this.taskDecorator != null) ? this.taskDecorator.decorate(task) : task;
		FencedRun run = new FencedRun(path, decorated, future);
		run.runsOnTimeout = runsOnTimeout;
		Ticket ticket;
		try {
			ticket = this.fence.acquire(path, run);
		}
		catch (IllegalStateException ex) {
			throw new TaskRejectedException("The fence is closed; a task of path '" + path + "' is refused", ex);
		}
		switch (ticket.admission()) {
			case GRANTED -> {
				run.ticket = ticket;
				boolean dispatched = false;
				try {
					dispatched = dispatch(run);
				}
				finally {
					// Whatever the workers threw, the task holds no permit.
					if (!dispatched) {
						ticket.release();
					}
				}
				if (!dispatched) {
					throw new TaskRejectedException("Workers of path '" + path + "' did not accept the task");
				}
			}
			case REJECTED -> throw new PathRejectedException(path, RejectionReason.QUEUE_FULL);
			case QUEUED -> {
				if (future != null) {
					future.waitingOn(ticket);
				}
				// A shutdown that swept the queues just before this task joined one.
				if (this.shutdown && ticket.cancel()) {
					throw new TaskRejectedException("Executor is shut down; a task of path '" + path + "' is refused");
				}
			}
		}
	}

	/**
	 * Hands a granted task on. A worker that is giving back its permit takes the task its
	 * permit was granted to itself, next, rather than queueing it for another thread: at
	 * saturation that saves a queue and a wake-up per task. Returns {@code false} when
	 * the workers refuse the task (they are shutting down): the task's future, if any,
	 * fails, and the caller gives the permit back.
	 */
	private boolean dispatch(FencedRun run) {
		Successor successor = this.successor.get();
		if (successor.open && successor.next == null) {
			successor.next = run;
			return true;
		}
		return toWorkers(run);
	}

	private boolean toWorkers(FencedRun run) {
		try {
			this.workers.execute(run);
			return true;
		}
		catch (RuntimeException ex) {
			// Refused the ordinary way (RejectedExecutionException) or otherwise: either
			// way the task will not run.
			if (run.future != null) {
				run.future.setException(new TaskRejectedException(
						"Workers of path '" + run.path + "' refused a granted task: they are shut down", ex));
			}
			return false;
		}
	}

	/**
	 * Gives a permit back on a worker, letting the worker take the task the permit goes
	 * to next.
	 */
	private void releaseOnWorker(Ticket ticket) {
		Successor successor = this.successor.get();
		boolean wasOpen = successor.open;
		successor.open = true;
		try {
			ticket.release();
		}
		finally {
			successor.open = wasOpen;
		}
	}

	/**
	 * The task a worker takes next, set while the worker gives back a permit. One per
	 * worker thread.
	 */
	private static final class Successor {

		boolean open;

		FencedRun next;

	}

	private final ThreadLocal<Successor> successor = ThreadLocal.withInitial(Successor::new);

	/**
	 * A task on its way through the fence: it waits for its grant or its expiry, then
	 * runs under its path on a worker and gives its permit back.
	 */
	final class FencedRun implements Runnable, Waiter {

		final String path;

		final Runnable task;

		final FencedFuture<?> future;

		/** Set when granted, before the task is handed to a worker. */
		Ticket ticket;

		/** Whether the task is run, without a permit, to report its queue timeout. */
		boolean runsOnTimeout;

		FencedRun(String path, Runnable task, FencedFuture<?> future) {
			this.path = path;
			this.task = task;
			this.future = future;
		}

		PathFenceTaskExecutor executor() {
			return PathFenceTaskExecutor.this;
		}

		@Override
		public void granted(Ticket granted) {
			this.ticket = granted;
			if (!dispatch(this)) {
				// The fence gives the permit back and on to the next waiter, in a loop of
				// its own: releasing here would recurse once per queued task while the
				// workers refuse them all.
				throw new TaskRejectedException("Workers of path '" + this.path + "' did not accept a granted task");
			}
		}

		@Override
		public void expired(Ticket expired) {
			if (this.runsOnTimeout) {
				// The task's own code reports the timeout: on a worker, not on the
				// fence's expiry thread.
				try {
					PathFenceTaskExecutor.this.workers.execute(new TimeoutReport(this::reportTimeout));
				}
				catch (RuntimeException | Error ex) {
					reportTimeout();
					if (ex instanceof VirtualMachineError fatal) {
						throw fatal;
					}
				}
			}
			else if (this.future == null) {
				// Nobody holds a future of an execute() task (or an @Async void method):
				// say it was dropped.
				logger.warn("A task of path '" + this.path + "' waited past its queue timeout and was dropped");
			}
			else if (this.future.completion == null) {
				this.future.reject(RejectionReason.TIMEOUT);
			}
			else {
				// The dependents of a CompletableFuture are the application's code: they
				// run on a worker, not on the fence's expiry thread.
				try {
					PathFenceTaskExecutor.this.workers
						.execute(new TimeoutReport(() -> this.future.reject(RejectionReason.TIMEOUT)));
				}
				catch (RuntimeException | Error ex) {
					// Workers that cannot take it (shut down, no thread to be had): the
					// future must fail all the same, here.
					this.future.reject(RejectionReason.TIMEOUT);
					if (ex instanceof VirtualMachineError fatal) {
						throw fatal;
					}
				}
			}
		}

		@Override
		public void run() {
			Successor successor = PathFenceTaskExecutor.this.successor.get();
			FencedRun current = this;
			try {
				while (current != null) {
					if (PathFenceTaskExecutor.this.shutdown) {
						current.abandon();
					}
					else {
						current.runOnce();
					}
					current = successor.next;
					successor.next = null;
					// As a thread pool does: a task that interrupted itself, or was
					// cancelled while running, does not pass its interrupt on.
					Thread.interrupted();
				}
			}
			finally {
				// A plain Runnable that threw leaves this loop (and, in a thread pool,
				// its thread) with the task its permit was just granted to still parked
				// here: hand that one to the workers, or it never runs and its permit
				// stays held for good.
				FencedRun parked = successor.next;
				successor.next = null;
				if (parked != null) {
					boolean handedOn = false;
					try {
						handedOn = toWorkers(parked);
					}
					finally {
						if (!handedOn) {
							logger.warn("Workers refused a granted task of path '" + parked.path + "'; it is dropped");
							parked.ticket.release();
						}
					}
				}
			}
		}

		private void reportTimeout() {
			timedOut.set(new PathRejectedException(this.path, RejectionReason.TIMEOUT));
			try {
				this.task.run();
			}
			finally {
				timedOut.remove();
			}
		}

		private void runOnce() {
			if (this.future != null) {
				// The future gives the permit back before it completes, so whoever waits
				// on it can submit again.
				this.future.holding(this.ticket);
			}
			String previous = CurrentPath.enter(this.path);
			try {
				this.task.run();
			}
			finally {
				CurrentPath.restore(previous);
				releaseOnWorker(this.ticket);
			}
		}

		/**
		 * A granted task that will not run: its permit goes back, its future is
		 * cancelled.
		 */
		void abandon() {
			this.ticket.release();
			cancelFuture();
		}

		void cancelFuture() {
			if (this.future != null) {
				this.future.cancel(false);
			}
		}

	}

	/**
	 * A task's future. It gives the task's permit back before it completes, so a caller
	 * that waits for one task and submits the next never finds the permit still held; a
	 * queue timeout fails it with the path's rejection.
	 */
	private final class FencedFuture<T> extends FutureTask<T> {

		private final String path;

		final CompletableFuture<T> completion;

		private volatile Ticket ticket;

		private volatile Ticket waiting;

		FencedFuture(String path, Callable<T> callable, CompletableFuture<T> completion) {
			super(callable);
			this.path = path;
			this.completion = completion;
		}

		void holding(Ticket ticket) {
			this.ticket = ticket;
		}

		void waitingOn(Ticket ticket) {
			this.waiting = ticket;
		}

		@Override
		public boolean cancel(boolean mayInterruptIfRunning) {
			boolean cancelled = super.cancel(mayInterruptIfRunning);
			Ticket queued = this.waiting;
			if (cancelled && queued != null) {
				// A cancelled task gives up its place in the queue at once instead of
				// being granted for nothing.
				queued.cancel();
			}
			return cancelled;
		}

		void reject(RejectionReason reason) {
			setException(new PathRejectedException(this.path, reason));
		}

		@Override
		protected void set(T value) {
			givePermitBack();
			super.set(value);
		}

		@Override
		protected void setException(Throwable failure) {
			givePermitBack();
			super.setException(failure);
		}

		@Override
		protected void done() {
			if (this.completion == null) {
				return;
			}
			try {
				this.completion.complete(get());
			}
			catch (ExecutionException ex) {
				this.completion.completeExceptionally(ex.getCause());
			}
			catch (CancellationException ex) {
				this.completion.cancel(false);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				this.completion.completeExceptionally(ex);
			}
		}

		private void givePermitBack() {
			Ticket held = this.ticket;
			if (held == null) {
				return;
			}
			if (this.completion == null) {
				releaseOnWorker(held);
			}
			else {
				// The dependents of the CompletableFuture run on this worker next: the
				// task the permit goes to must not wait for them, so another worker takes
				// it.
				held.release();
			}
		}

	}

}
