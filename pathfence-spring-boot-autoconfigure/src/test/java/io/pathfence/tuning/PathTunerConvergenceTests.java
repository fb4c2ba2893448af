package io.pathfence.tuning;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

import io.pathfence.core.PathFence;
import io.pathfence.sct.SctConfig;
import io.pathfence.task.PathFenceTaskExecutor;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A path whose throughput peaks at a known concurrency: its work needs one of
 * {@value #CORES} simulated cores for {@value #WORK_MILLIS} ms, so beyond {@value #CORES}
 * concurrent tasks throughput stays flat and only response time grows. Closed-loop
 * clients keep more work waiting than the reservation admits. Started far above the knee,
 * the tuner must bring the reservation near it, and keep the throughput of the knee.
 */
class PathTunerConvergenceTests {

	private static final int CORES = 4;

	private static final int WORK_MILLIS = 10;

	private static final int CLIENTS = 24;

	private static final int START_PERMITS = 16;

	private final Queue<Throwable> clientFailures = new ConcurrentLinkedQueue<>();

	private final AtomicLong completions = new AtomicLong();

	@Test
	void reservationConvergesNearTheKneeAndKeepsItsThroughput() throws Exception {
		SctConfig config = SctConfig.builder().interval(Duration.ofMillis(50)).window(Duration.ofSeconds(3)).build();
		PathFence fence = PathFence.builder(40).path("work", START_PERMITS, 1000, Duration.ZERO).build();
		PathTuner tuner = new PathTuner(fence, List.of("work"), config, new ReservationStep(1, 32, 4, 1), 1,
				System::nanoTime, Clock.systemUTC());
		fence.addListener(tuner);
		ThreadPoolTaskExecutor workers = new ThreadPoolTaskExecutor();
		workers.setCorePoolSize(40);
		workers.setMaxPoolSize(40);
		workers.initialize();
		PathFenceTaskExecutor executor = new PathFenceTaskExecutor(fence, workers, null);
		Semaphore cores = new Semaphore(CORES, true);
		AtomicBoolean running = new AtomicBoolean(true);
		List<Thread> clients = new ArrayList<>();
		for (int i = 0; i < CLIENTS; i++) {
			Thread client = new Thread(() -> runClient(executor, cores, running));
			client.setDaemon(true);
			client.start();
			clients.add(client);
		}
		List<Integer> trajectory = new ArrayList<>();
		double settledThroughput = 0;
		double kneeThroughput = 0;
		int settled;
		try {
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
			Thread.sleep(3000);
			while (System.nanoTime() < deadline) {
				TuningDecision decision = tuner.decide().get("work");
				trajectory.add(decision.permitsAfter());
				System.out.println(decision.permitsBefore() + " -> " + decision.permitsAfter() + " "
						+ decision.verdict() + ": " + decision.reason());
				Thread.sleep(750);
			}
			// Where it settled: the median of the last 8 decisions, since it still probes
			// a step either side now
			// and then and comes back.
			settled = trajectory.subList(trajectory.size() - 8, trajectory.size()).stream().sorted().toList().get(3);
			// Tuning stops here; the two reservations are measured in alternation, so
			// that a change in the shared
			// machine's load hits both alike.
			for (int round = 0; round < 2; round++) {
				settledThroughput += throughputAt(fence, settled);
				kneeThroughput += throughputAt(fence, CORES);
			}
		}
		finally {
			running.set(false);
			for (Thread client : clients) {
				client.join(5000);
			}
			workers.shutdown();
		}
		System.out.println("permits over time: " + trajectory + "; settled at " + settled + "; throughput there "
				+ settledThroughput / 2 + "/s, at the knee " + kneeThroughput / 2 + "/s");
		assertThat(this.clientFailures).as("exceptions the clients met").isEmpty();
		assertThat(clients).as("clients still running").noneMatch(Thread::isAlive);
		assertThat((double) settled)
			.as("settled reservation, started at %d, knee at %d: %s", START_PERMITS, CORES, trajectory)
			.isBetween(CORES * 0.8, CORES * 1.2);
		assertThat(settledThroughput).as("throughput at %d against the knee's", settled)
			.isGreaterThanOrEqualTo(0.9 * kneeThroughput);
	}

	/** Closed loop: one task at a time, the next as soon as the last is done. */
	private void runClient(PathFenceTaskExecutor executor, Semaphore cores, AtomicBoolean running) {
		while (running.get()) {
			try {
				executor.submit("work", () -> {
					cores.acquire();
					try {
						Thread.sleep(WORK_MILLIS);
					}
					finally {
						cores.release();
					}
					return null;
				}).get(10, TimeUnit.SECONDS);
				this.completions.incrementAndGet();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				this.clientFailures.add(ex);
				return;
			}
			catch (Exception ex) {
				this.clientFailures.add(ex);
				return;
			}
		}
	}

	/**
	 * Completions per second over one second with the reservation at {@code permits},
	 * after 300 ms to settle.
	 */
	private double throughputAt(PathFence fence, int permits) throws InterruptedException {
		fence.resize("work", permits);
		Thread.sleep(300);
		long before = this.completions.get();
		long start = System.nanoTime();
		Thread.sleep(1000);
		return (this.completions.get() - before) / ((System.nanoTime() - start) / 1e9);
	}

}
