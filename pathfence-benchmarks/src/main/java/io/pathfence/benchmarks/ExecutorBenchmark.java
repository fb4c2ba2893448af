package io.pathfence.benchmarks;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.bulkhead.BulkheadConfig;
import io.github.resilience4j.bulkhead.ThreadPoolBulkhead;
import io.github.resilience4j.bulkhead.ThreadPoolBulkheadConfig;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

import io.pathfence.core.PathFence;
import io.pathfence.task.PathFenceTaskExecutor;

/**
 * The per-task cost of submitting a small task and having it run, on the same pool of
 * {@value #POOL} worker threads behind four front ends:
 * <ul>
 * <li>{@code plain}: a {@link ThreadPoolTaskExecutor} (core = max = {@value #POOL},
 * unbounded queue), the baseline;</li>
 * <li>{@code pathfence}: a {@link PathFenceTaskExecutor} over two paths of 3 permits and
 * a local reservation of the remaining 2, whose workers are the same kind of
 * {@link ThreadPoolTaskExecutor}; the tasks go round-robin over the paths in proportion
 * to their permits (a, b, local, a, b, local, a, b), so any {@value #POOL} consecutive
 * tasks fit their reservations exactly;</li>
 * <li>{@code r4j-threadpool}: Resilience4j's {@link ThreadPoolBulkhead} with core = max =
 * {@value #POOL} threads and a queue that holds a whole batch;</li>
 * <li>{@code r4j-semaphore}: Resilience4j's {@link Bulkhead} (a semaphore of
 * {@value #POOL} permits, waiting up to 10 s) in front of the plain executor: the permit
 * is taken on the submitting thread before the task is handed over and given back in the
 * task's {@code finally}.</li>
 * </ul>
 * One invocation submits a batch of {@value #TASKS} identical tasks from the benchmark
 * thread and waits for all of them on a {@link CountDownLatch}; the score is divided by
 * {@value #TASKS}, so it reads as nanoseconds per task. At most {@code inFlight} tasks
 * are outstanding at once: the benchmark thread takes a window permit before each submit
 * and the task gives it back at the end of its body, the same code for every front end.
 * <ul>
 * <li>{@code inFlight = 8} (the pool size): the steady state of a service within its
 * capacity; the fence grants at once (except when a task's predecessor has finished its
 * body but not yet returned its permit) and no executor builds a queue.</li>
 * <li>{@code inFlight = 1024} (the whole batch): saturation; the plain executors queue in
 * their work queue, the fence queues in its path queues and hands each freed permit on
 * from the releasing worker, the semaphore bulkhead blocks the submitting thread.</li>
 * </ul>
 * The task body burns {@code work} tokens of {@link Blackhole#consumeCPU(long)} (about 1
 * ns each): a small task, so the front ends' own costs are not hidden behind the work.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 4, time = 2)
@Fork(value = 2, jvmArgsAppend = { "-Xms512m", "-Xmx512m" })
@State(Scope.Benchmark)
public class ExecutorBenchmark {

	static final int POOL = 8;

	static final int TASKS = 1024;

	/** Paths in proportion to their permits (3, 3 and local 2), interleaved. */
	private static final String[] PATHS = { "a", "b", PathFence.LOCAL, "a", "b", PathFence.LOCAL, "a", "b" };

	@Param({ "plain", "pathfence", "r4j-threadpool", "r4j-semaphore" })
	public String executor;

	@Param({ "8", "1024" })
	public int inFlight;

	@Param({ "100" })
	public int work;

	private Submitter submitter;

	private Semaphore window;

	private AutoCloseable resources;

	@Setup(Level.Trial)
	public void setUp() {
		if (this.inFlight < 1 || this.inFlight > TASKS) {
			throw new IllegalArgumentException("inFlight must be in [1, " + TASKS + "], was " + this.inFlight);
		}
		this.window = new Semaphore(this.inFlight);
		switch (this.executor) {
			case "plain" -> {
				ThreadPoolTaskExecutor plain = workers("plain-");
				this.submitter = (index, task) -> plain.execute(task);
				this.resources = plain::shutdown;
			}
			case "pathfence" -> {
				ThreadPoolTaskExecutor workers = workers("fenced-");
				PathFence fence = PathFence.builder(POOL)
					.path("a", 3, Integer.MAX_VALUE, Duration.ZERO)
					.path("b", 3, Integer.MAX_VALUE, Duration.ZERO)
					.build();
				PathFenceTaskExecutor fenced = new PathFenceTaskExecutor(fence, workers, null);
				this.submitter = (index, task) -> fenced.execute(PATHS[index & (POOL - 1)], task);
				this.resources = () -> {
					workers.shutdown();
					fence.close();
				};
			}
			case "r4j-threadpool" -> {
				ThreadPoolBulkhead bulkhead = ThreadPoolBulkhead.of("bench",
						ThreadPoolBulkheadConfig.custom()
							.maxThreadPoolSize(POOL)
							.coreThreadPoolSize(POOL)
							.queueCapacity(TASKS)
							.build());
				this.submitter = (index, task) -> bulkhead.executeRunnable(task);
				this.resources = bulkhead;
			}
			case "r4j-semaphore" -> {
				ThreadPoolTaskExecutor plain = workers("semaphore-");
				Bulkhead bulkhead = Bulkhead.of("bench",
						BulkheadConfig.custom()
							.maxConcurrentCalls(POOL)
							.maxWaitDuration(Duration.ofSeconds(10))
							.build());
				this.submitter = (index, task) -> {
					bulkhead.acquirePermission();
					try {
						plain.execute(() -> {
							try {
								task.run();
							}
							finally {
								bulkhead.onComplete();
							}
						});
					}
					catch (RuntimeException ex) {
						bulkhead.onComplete();
						throw ex;
					}
				};
				this.resources = plain::shutdown;
			}
			default -> throw new IllegalArgumentException("unknown executor '" + this.executor + "'");
		}
	}

	@TearDown(Level.Trial)
	public void tearDown() throws Exception {
		this.resources.close();
	}

	@Benchmark
	@OperationsPerInvocation(TASKS)
	public void submitAndRun() throws InterruptedException {
		Batch batch = new Batch(this.window, this.work);
		Semaphore window = this.window;
		Submitter submitter = this.submitter;
		for (int i = 0; i < TASKS; i++) {
			window.acquire();
			submitter.submit(i, batch);
		}
		if (!batch.done.await(60, TimeUnit.SECONDS)) {
			throw new IllegalStateException(
					this.executor + ": " + batch.done.getCount() + " of " + TASKS + " tasks did not run within 60 s");
		}
	}

	/**
	 * Workers with room for every task: core = max = the pool, so the front end alone
	 * decides who waits.
	 */
	private static ThreadPoolTaskExecutor workers(String prefix) {
		ThreadPoolTaskExecutor workers = new ThreadPoolTaskExecutor();
		workers.setCorePoolSize(POOL);
		workers.setMaxPoolSize(POOL);
		workers.setThreadNamePrefix(prefix);
		workers.setPrestartAllCoreThreads(true);
		workers.initialize();
		return workers;
	}

	/**
	 * Hands one task to the front end under test; {@code index} spreads the tasks over
	 * the paths.
	 */
	@FunctionalInterface
	private interface Submitter {

		void submit(int index, Runnable task);

	}

	/** The task every front end runs, {@value #TASKS} times per invocation. */
	private static final class Batch implements Runnable {

		final CountDownLatch done = new CountDownLatch(TASKS);

		private final Semaphore window;

		private final int work;

		Batch(Semaphore window, int work) {
			this.window = window;
			this.work = work;
		}

		@Override
		public void run() {
			Blackhole.consumeCPU(this.work);
			this.window.release();
			this.done.countDown();
		}

	}

}
