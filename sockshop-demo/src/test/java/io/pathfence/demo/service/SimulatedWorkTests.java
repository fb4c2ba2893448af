package io.pathfence.demo.service;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Virtual threads must do the work they are given even when the cores are busy, or the
 * virtual-threads mode would be judged on less work than the others.
 */
class SimulatedWorkTests {

	private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

	private static final com.sun.management.OperatingSystemMXBean PROCESS = (com.sun.management.OperatingSystemMXBean) ManagementFactory
		.getOperatingSystemMXBean();

	@Test
	void virtualThreadsBurnTheConfiguredCpuTimeWhileOtherThreadsCompeteForTheCores() throws Exception {
		int cores = Runtime.getRuntime().availableProcessors();
		int requestsPerThread = 10;
		Duration cpuTime = Duration.ofMillis(20);
		SimulatedWork work = new SimulatedWork(cpuTime, Duration.ZERO, true);
		// Noisy neighbours: one spinning platform thread per core, so a virtual thread
		// gets about half a core.
		AtomicBoolean spinning = new AtomicBoolean(true);
		List<Thread> neighbours = new ArrayList<>();
		for (int i = 0; i < cores; i++) {
			neighbours.add(Thread.ofPlatform().daemon().start(() -> {
				long x = 0;
				while (spinning.get()) {
					x += x * 31 + 7;
				}
				if (x == 42) {
					Thread.onSpinWait();
				}
			}));
		}
		long neighboursBefore = cpuTimeOf(neighbours);
		long processBefore = PROCESS.getProcessCpuTime();
		List<Thread> requests = new ArrayList<>();
		for (int i = 0; i < cores; i++) {
			requests.add(Thread.ofVirtual().start(() -> {
				for (int r = 0; r < requestsPerThread; r++) {
					work.perform();
				}
			}));
		}
		for (Thread request : requests) {
			request.join();
		}
		long virtualThreadsCpu = PROCESS.getProcessCpuTime() - processBefore
				- (cpuTimeOf(neighbours) - neighboursBefore);
		spinning.set(false);
		for (Thread neighbour : neighbours) {
			neighbour.join();
		}

		long configured = cpuTime.toNanos() * requestsPerThread * cores;
		// Everything else the JVM did meanwhile (JIT, GC) only adds to the measure: a
		// lower bound holds.
		assertThat(virtualThreadsCpu)
			.as("CPU time burnt by the virtual threads, against %d ms configured", configured / 1_000_000)
			.isGreaterThanOrEqualTo(configured * 8 / 10);
	}

	private static long cpuTimeOf(List<Thread> threads) {
		return threads.stream().mapToLong((thread) -> THREADS.getThreadCpuTime(thread.threadId())).sum();
	}

}
