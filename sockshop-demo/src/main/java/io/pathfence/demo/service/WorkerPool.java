package io.pathfence.demo.service;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

import io.pathfence.core.Admission;
import io.pathfence.core.PathFence;
import io.pathfence.core.PathFigures;
import io.pathfence.core.Ticket;
import io.pathfence.core.Waiter;
import io.pathfence.demo.topology.Tuning;
import io.pathfence.sct.SctConfig;
import io.pathfence.tuning.PathTuner;
import io.pathfence.tuning.ReservationStep;
import io.pathfence.tuning.TuningSchedule;

/**
 * The worker threads of an event-driven service, as the paper's asynchronous servers had
 * them: a request holds a worker only while it computes (its CPU time), never while it
 * waits for a database or a downstream, and how many workers may compute at once is sized
 * online by the SCT model, the way the paper tuned its asynchronous servers' concurrency.
 * Requests beyond that limit wait in one FIFO queue, whatever their path: the global
 * worker pool that, unlike PathFence, does not isolate the paths.
 * <p>
 * The limit is one reservation of a {@link PathFence} holding every request, tuned by the
 * same {@link PathTuner} (and the same guards) that tunes PathFence's reservations in the
 * {@code pathfence-sct} mode, so that the two modes differ only in isolating the paths.
 */
public final class WorkerPool implements AutoCloseable {

	/** The one reservation: every request's computation. */
	public static final String WORKERS = "workers";

	private final PathFence limit;

	private final ThreadPoolExecutor threads;

	private final TuningSchedule schedule;

	/**
	 * @param initial the workers that may compute at once before SCT has decided
	 * @param max the most SCT may allow, and the threads there may ever be
	 * @param tuning SCT's interval, window, period and guards
	 */
	public WorkerPool(int initial, int max, Tuning tuning) {
		SctConfig config = SctConfig.builder().interval(tuning.interval()).window(tuning.window()).build();
		// No local reservation: every request is the one path's.
		this.limit = PathFence.builder(max)
			.path(WORKERS, initial, Integer.MAX_VALUE, Duration.ZERO)
			.local(0, 0, Duration.ZERO)
			.build();
		PathTuner tuner = new PathTuner(this.limit, List.of(WORKERS), config,
				new ReservationStep(1, max, tuning.maxStep(), tuning.hysteresis()), 0, System::nanoTime,
				Clock.systemUTC());
		this.limit.addListener(tuner);
		AtomicInteger count = new AtomicInteger();
		this.threads = new ThreadPoolExecutor(max, max, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), (task) -> {
			Thread thread = new Thread(task, "worker-" + count.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		});
		this.threads.allowCoreThreadTimeOut(true);
		this.schedule = new TuningSchedule(tuner, tuning.period());
		this.schedule.start();
	}

	/**
	 * Runs {@code computation} on a worker once one is free, and completes when it is
	 * done; the caller's thread (an event loop) is never blocked.
	 */
	public Mono<Void> compute(Runnable computation) {
		return Mono.create((sink) -> {
			Ticket ticket = this.limit.acquire(WORKERS, new Waiter() {

				@Override
				public void granted(Ticket granted) {
					run(granted, computation, sink);
				}

				@Override
				public void expired(Ticket expired) {
					// Only when the pool closes: the queue has no timeout.
					sink.error(new IllegalStateException("the worker pool is closed"));
				}

			});
			if (ticket.admission() == Admission.GRANTED) {
				run(ticket, computation, sink);
			}
			else if (ticket.admission() == Admission.QUEUED) {
				// A request given up while it waits leaves the queue; one granted
				// meanwhile computes and releases its worker as usual.
				sink.onCancel(ticket::cancel);
			}
			else {
				sink.error(new IllegalStateException("the worker queue is full"));
			}
		});
	}

	private void run(Ticket ticket, Runnable computation, MonoSink<Void> sink) {
		try {
			this.threads.execute(() -> {
				try {
					computation.run();
				}
				catch (Throwable ex) {
					// Whatever the computation throws, its worker goes back to the pool.
					ticket.release();
					sink.error(ex);
					return;
				}
				ticket.release();
				sink.success();
			});
		}
		catch (RejectedExecutionException ex) {
			// The pool closed between the grant and the hand-over: the permit is given
			// back, not left held by a computation that never runs.
			ticket.release();
			sink.error(new IllegalStateException("the worker pool is closed", ex));
		}
	}

	/** The workers computing now, waiting, and allowed. */
	public PathFigures figures() {
		return this.limit.figures(WORKERS);
	}

	@Override
	public void close() {
		this.schedule.stop();
		// Closing the fence ends every queued computation with an error rather than
		// leaving its caller waiting for a worker that will never come.
		this.limit.close();
		this.threads.shutdownNow();
	}

}
