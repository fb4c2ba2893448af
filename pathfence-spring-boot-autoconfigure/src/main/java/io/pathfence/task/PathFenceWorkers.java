package io.pathfence.task;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;

import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

/**
 * The worker threads of a {@link PathFenceTaskExecutor}: a {@link ThreadPoolTaskExecutor}
 * that starts a thread, up to its maximum, whenever no thread is idle, and queues a task
 * only beyond that. The fence, not this pool, decides who waits: every granted task must
 * find a thread at once, even while other workers run the dependents of a finished task's
 * {@code CompletableFuture}, which hold no permit. Set the core size to the pool of
 * permits and the maximum above it by the threads those dependents may need.
 * <p>
 * A granted task the pool drops at shutdown gives its permit back and has its future
 * cancelled.
 */
public class PathFenceWorkers extends ThreadPoolTaskExecutor {

	/**
	 * Any rejection policy set on this pool is replaced: a task refused for want of a
	 * thread is queued instead, and refused only once the pool is shut down.
	 */
	@Override
	protected ExecutorService initializeExecutor(ThreadFactory threadFactory, RejectedExecutionHandler ignored) {
		return super.initializeExecutor(threadFactory, PathFenceWorkers::queueWhenNoThreadIsLeft);
	}

	/**
	 * The queue capacity is ignored: tasks are queued only when no thread can be added.
	 */
	@Override
	protected BlockingQueue<Runnable> createQueue(int queueCapacity) {
		return new HandOffQueue();
	}

	@Override
	protected void cancelRemainingTask(Runnable task) {
		super.cancelRemainingTask(task);
		PathFenceTaskExecutor.abandon(task);
	}

	private static void queueWhenNoThreadIsLeft(Runnable task, ThreadPoolExecutor pool) {
		if (pool.isShutdown()) {
			throw new RejectedExecutionException("Workers are shut down");
		}
		((HandOffQueue) pool.getQueue()).enqueue(task);
		if (pool.isShutdown() && pool.remove(task)) {
			throw new RejectedExecutionException("Workers are shut down");
		}
	}

	/**
	 * Offers a task only to a thread that waits for one, so that the pool starts a new
	 * thread otherwise; queues it for real only when the pool is at its maximum.
	 */
	private static final class HandOffQueue extends LinkedTransferQueue<Runnable> {

		@Override
		public boolean offer(Runnable task) {
			return tryTransfer(task);
		}

		void enqueue(Runnable task) {
			super.offer(task);
		}

	}

}
