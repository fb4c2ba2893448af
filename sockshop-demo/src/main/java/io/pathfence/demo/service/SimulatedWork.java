package io.pathfence.demo.service;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.concurrent.Semaphore;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * A service's own work on each request: CPU time (burnt on the request's thread) then
 * wait time (the thread blocked, as on a database or a disk), the two costs that make a
 * synchronous service hold its threads. A service with work slots
 * ({@code demo.work-slots}, a database's connections) lets only that many requests work
 * at once; the others wait their turn in order.
 * <p>
 * The CPU time is CPU time, not elapsed time, in every mode, so that the modes do the
 * same work: on a platform thread the loop runs until the thread's own CPU clock has
 * advanced by {@code demo.cpu-time}. A virtual thread has no CPU clock of its own (the
 * JVM answers -1), and elapsed time would let it burn less CPU than configured whenever
 * the cores are busy, which is exactly when it matters; so with virtual threads the
 * service measures, at start-up on its platform thread, how many rounds of the loop one
 * nanosecond of CPU time buys, and a virtual thread runs that many rounds. The fastest
 * rate measured is kept, so a virtual thread burns at least the configured time, never
 * less, as long as the loop runs no faster later than while it was calibrated: true of
 * the services, which run C1-only (see {@code run.Settings}). Under C2, which may compile
 * the loop after calibration, a virtual thread was seen burning 60 % of the configured
 * time.
 */
@Component
public class SimulatedWork {

	private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

	/**
	 * The loop's rounds between two looks at the CPU clock; a round is a few hundred
	 * simple operations.
	 */
	private static final int ROUNDS_PER_LOOK = 1;

	/**
	 * The rounds between two looks at the CPU clock while calibrating: enough that the
	 * clock's own cost (a system call) is well under 1 % of what is measured, since a
	 * virtual thread's loop does not pay it.
	 */
	private static final int CALIBRATION_ROUNDS_PER_LOOK = 2000;

	/** How much CPU time each calibration slice measures. */
	private static final long SLICE_NANOS = 5_000_000;

	/**
	 * Calibration ends once this many slices in a row were no more than 2 % faster than
	 * the fastest before: the JIT has compiled the loop as it will run it, when C1 is the
	 * only compiler (as in the demo's services).
	 */
	private static final int STABLE_SLICES = 10;

	/** A bound on calibration (a second of CPU time) should the rate never settle. */
	private static final int MAX_SLICES = 200;

	/** Where the loop's result goes, so that the JIT cannot remove the loop. */
	private static volatile long sink;

	private final long cpuNanos;

	private final Duration wait;

	/** The work slots, fair so that requests get them in order; {@code null} for none. */
	private final Semaphore slots;

	private final int slotCount;

	/**
	 * Loop rounds per nanosecond of CPU time, measured at start-up with virtual threads;
	 * otherwise 0.
	 */
	private final double roundsPerNano;

	@Autowired
	public SimulatedWork(@Value("${demo.cpu-time:1ms}") Duration cpuTime,
			@Value("${demo.wait-time:10ms}") Duration wait,
			@Value("${spring.threads.virtual.enabled:false}") boolean virtualThreads,
			@Value("${demo.work-slots:0}") int workSlots) {
		this.cpuNanos = cpuTime.toNanos();
		this.wait = wait;
		this.roundsPerNano = (virtualThreads && this.cpuNanos > 0) ? calibrate() : 0;
		this.slotCount = workSlots;
		this.slots = (workSlots > 0) ? new Semaphore(workSlots, true) : null;
	}

	public SimulatedWork(Duration cpuTime, Duration wait, boolean virtualThreads) {
		this(cpuTime, wait, virtualThreads, 0);
	}

	/**
	 * The whole of a request's work on the calling thread: a slot if the service has
	 * them, then the CPU time, then the wait.
	 */
	public void perform() {
		if (this.slots != null) {
			this.slots.acquireUninterruptibly();
		}
		try {
			burnCpu();
			if (!this.wait.isZero()) {
				Thread.sleep(this.wait);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		finally {
			if (this.slots != null) {
				this.slots.release();
			}
		}
	}

	/**
	 * The time each request waits, for a service that waits without blocking a thread.
	 */
	public Duration waitTime() {
		return this.wait;
	}

	/** The work slots; 0 for none. */
	public int workSlots() {
		return this.slotCount;
	}

	/** Burns the configured CPU time on the calling thread. */
	public void burnCpu() {
		if (this.cpuNanos <= 0) {
			return;
		}
		long start = THREADS.getCurrentThreadCpuTime();
		if (start >= 0) {
			long result = 0;
			while (THREADS.getCurrentThreadCpuTime() - start < this.cpuNanos) {
				result = spin(ROUNDS_PER_LOOK, result);
			}
			sink = result;
		}
		else if (this.roundsPerNano > 0) {
			sink = spin(Math.max(1, Math.round(this.cpuNanos * this.roundsPerNano)), 0);
		}
		else {
			// A JVM that measures no thread's CPU time: elapsed time is all there is.
			long result = 0;
			long from = System.nanoTime();
			while (System.nanoTime() - from < this.cpuNanos) {
				result = spin(ROUNDS_PER_LOOK, result);
			}
			sink = result;
		}
	}

	/**
	 * The fastest rate of the loop, in rounds per nanosecond of this (platform) thread's
	 * CPU time, once the JIT has done with it; 0 if the JVM measures no thread's CPU
	 * time.
	 */
	static double calibrate() {
		double fastest = 0;
		int slowerSlices = 0;
		long result = 0;
		for (int slice = 0; slice < MAX_SLICES && slowerSlices < STABLE_SLICES; slice++) {
			long from = THREADS.getCurrentThreadCpuTime();
			if (from < 0) {
				return 0;
			}
			long rounds = 0;
			long used;
			do {
				result = spin(CALIBRATION_ROUNDS_PER_LOOK, result);
				rounds += CALIBRATION_ROUNDS_PER_LOOK;
				used = THREADS.getCurrentThreadCpuTime() - from;
			}
			while (used < SLICE_NANOS);
			double rate = (double) rounds / used;
			slowerSlices = (rate > fastest * 1.02) ? 0 : slowerSlices + 1;
			fastest = Math.max(fastest, rate);
		}
		sink = result;
		return fastest;
	}

	private static long spin(long rounds, long seed) {
		long value = seed;
		for (long round = 0; round < rounds; round++) {
			for (int i = 0; i < 200; i++) {
				value += (value * 31) ^ i;
			}
		}
		return value;
	}

}
