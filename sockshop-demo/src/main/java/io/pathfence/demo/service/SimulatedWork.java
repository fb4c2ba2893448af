package io.pathfence.demo.service;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * A service's own work on each request: CPU time (burnt on the request's thread) then wait time (the thread
 * blocked, as on a database or a disk), the two costs that make a synchronous service hold its threads.
 */
@Component
public class SimulatedWork {

	private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

	private final long cpuNanos;

	private final Duration wait;

	public SimulatedWork(@Value("${demo.cpu-time:1ms}") Duration cpuTime, @Value("${demo.wait-time:10ms}") Duration wait) {
		this.cpuNanos = cpuTime.toNanos();
		this.wait = wait;
	}

	public void perform() {
		burnCpu();
		if (!this.wait.isZero()) {
			try {
				Thread.sleep(this.wait);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private void burnCpu() {
		if (this.cpuNanos <= 0) {
			return;
		}
		// Thread CPU time where the JVM measures it; a virtual thread's is not, so fall back to elapsed time.
		long start = THREADS.getCurrentThreadCpuTime();
		boolean measured = start >= 0;
		long from = measured ? start : System.nanoTime();
		long sink = 0;
		while ((measured ? THREADS.getCurrentThreadCpuTime() : System.nanoTime()) - from < this.cpuNanos) {
			for (int i = 0; i < 200; i++) {
				sink += (sink * 31) ^ i;
			}
		}
		if (sink == 42) {
			Thread.onSpinWait();
		}
	}

}
