package io.pathfence.tuning;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

import io.pathfence.core.PathFence;
import io.pathfence.core.WaitTimer;
import io.pathfence.sct.SctConfig;
import io.pathfence.task.PathFenceTaskExecutor;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A path whose throughput peaks at a known concurrency: its work needs one of {@value #CORES} simulated cores for
 * {@value #WORK_MILLIS} ms, so beyond {@value #CORES} concurrent tasks throughput stays flat and only response time
 * grows. Closed-loop clients keep more work waiting than the reservation admits. Started far above the knee, the
 * tuner must bring the reservation near it, and keep the throughput of the knee.
 */
class PathTunerConvergenceTests {

	private static final int CORES = 4;

	private static final int WORK_MILLIS = 10;

	private static final int CLIENTS = 24;

	@Test
	void reservationConvergesNearTheKnee() throws Exception {
		AtomicReference<PathFence> fenceRef = new AtomicReference<>();
		SctConfig config = SctConfig.builder().interval(Duration.ofMillis(50)).window(Duration.ofSeconds(3)).build();
		PathTuner tuner = new PathTuner(fenceRef::get, List.of("work"), config, new ReservationStep(1, 32, 4, 1), 1,
				System::nanoTime, Clock.systemUTC());
		PathFence fence = PathFence.builder(40).path("work", 16, 1000, Duration.ZERO).listener(tuner).build();
		fenceRef.set(fence);
		ThreadPoolTaskExecutor workers = new ThreadPoolTaskExecutor();
		workers.setCorePoolSize(40);
		workers.setMaxPoolSize(40);
		workers.initialize();
		PathFenceTaskExecutor executor = new PathFenceTaskExecutor(fence, workers, new WaitTimer(), null);
		Semaphore cores = new Semaphore(CORES, true);
		AtomicBoolean running = new AtomicBoolean(true);
		List<Thread> clients = new ArrayList<>();
		for (int i = 0; i < CLIENTS; i++) {
			Thread client = new Thread(() -> {
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
					}
					catch (Exception ex) {
						return;
					}
				}
			});
			client.setDaemon(true);
			client.start();
			clients.add(client);
		}
		List<Integer> trajectory = new ArrayList<>();
		try {
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(18);
			Thread.sleep(3000);
			while (System.nanoTime() < deadline) {
				TuningDecision decision = tuner.decide().get("work");
				trajectory.add(decision.permitsAfter());
				System.out.println(decision.permitsBefore() + " -> " + decision.permitsAfter() + " " + decision.verdict()
						+ ": " + decision.reason());
				Thread.sleep(750);
			}
		}
		finally {
			running.set(false);
			for (Thread client : clients) {
				client.join(5000);
			}
			workers.shutdown();
		}
		System.out.println("permits over time: " + trajectory + "; last decision: " + tuner.decision("work"));
		// Once settled the tuner still probes one step either side of the knee now and then, and comes back.
		List<Integer> settled = trajectory.subList(trajectory.size() - 8, trajectory.size());
		assertThat(settled).as("reservation in the last 6 s, knee at %d", CORES).allMatch((p) -> p >= 3 && p <= 6);
		assertThat(settled.stream().mapToInt(Integer::intValue).average().orElseThrow()).as("mean settled reservation")
			.isBetween(CORES * 0.8, CORES * 1.25);
		assertThat(trajectory.get(0)).as("started far above the knee").isGreaterThan(8);
	}

}
