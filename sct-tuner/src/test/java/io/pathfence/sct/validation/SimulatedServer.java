package io.pathfence.sct.validation;

import io.pathfence.sct.ConcurrencyRecorder;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * A deterministic, time-stepped model of a service whose optimum is known: {@code cores}
 * CPUs shared by processor sharing, each request needing a CPU demand (uniform in [0.5,
 * 1.5] x {@code cpuMillis}) and then a non-CPU delay such as a downstream call (uniform
 * in [0.5, 1.5] x {@code ioMillis}). With k requests in their CPU phase each progresses
 * at
 *
 * <pre>  rate(k) = min(1, cores / k) / (1 + contention * max(0, k - cores))</pre>
 *
 * so running more threads than cores costs overhead (context switches, cache misses) and
 * throughput falls past the knee. The asymptotes meet at N* = cores * (cpu + io) / cpu,
 * the analytic knee; the sweep's knee is measured.
 *
 * <p>
 * Requests wait in a FIFO queue (bounded; arrivals beyond it are dropped) for one of
 * {@code limit} permits. Every timestamp is a multiple of the step, and every random draw
 * comes from one seeded generator, so a run is reproducible to the bit.
 */
public final class SimulatedServer {

	/** The shape of a simulated service. */
	public record Shape(String name, int cores, double cpuMillis, double ioMillis, double contention) {

		public double analyticKnee() {
			return cores * (cpuMillis + ioMillis) / cpuMillis;
		}

		public double maxThroughput() {
			return cores * 1000.0 / cpuMillis;
		}

		long stepNanos() {
			double shortest = ioMillis > 0 ? Math.min(cpuMillis, ioMillis) : cpuMillis;
			return Math.max(1_000L, Math.round(shortest * 1e6 / 40));
		}

		@Override
		public String toString() {
			return name;
		}
	}

	/**
	 * Told about each completion; may change the limit (an adaptive limiter under test).
	 */
	public interface CompletionListener {

		void completed(Session session, long admittedNanos, long nowNanos, int inFlight);

	}

	/** Throughput and response times of one stretch of a run. */
	public record Measurement(double seconds, long completions, double throughput, double meanMillis, double p99Millis,
			long dropped) {
	}

	/**
	 * Open arrivals: Poisson with a rate that swings sinusoidally between low and high
	 * fractions of capacity. A request that waited longer than the timeout for a permit
	 * is dropped, as its client has given up.
	 */
	public record Load(double lowFraction, double highFraction, double periodSeconds, int queueCapacity,
			double queueTimeoutSeconds) {

		/** Saturating load: more than the service can do, all the time. */
		public static Load overload() {
			return new Load(1.3, 1.3, 1, 4_096, 1.0);
		}

		/**
		 * The bursty load the SCT validation observes: from 20 % to 140 % of capacity
		 * every 12 s.
		 */
		public static Load bursty() {
			return new Load(0.2, 1.4, 12, 4_096, 1.0);
		}
	}

	private SimulatedServer() {
	}

	/**
	 * A run in progress; keeps its clock, queue and requests in service between calls.
	 */
	public static final class Session {

		private static final int MAX_IN_SERVICE = 8_192;

		private final Shape shape;

		private final Load load;

		private final boolean closedLoop;

		private final SplittableRandom random;

		private final long step;

		private final double[] cpuLeft = new double[MAX_IN_SERVICE];

		private final double[] ioLeft = new double[MAX_IN_SERVICE];

		private final long[] admittedAt = new long[MAX_IN_SERVICE];

		private int inService;

		private int inCpu;

		private final long[] queue;

		private int queueHead;

		private int queueSize;

		private long now;

		private double nextArrival;

		private int limit;

		private Session(Shape shape, Load load, boolean closedLoop, int limit, long seed) {
			this.shape = shape;
			this.load = load;
			this.closedLoop = closedLoop;
			this.random = new SplittableRandom(seed);
			this.step = shape.stepNanos();
			this.queue = new long[load == null ? 1 : load.queueCapacity()];
			this.limit = limit;
			this.nextArrival = 0;
		}

		/**
		 * Open arrivals under {@code load}, admitted by a limit that starts at
		 * {@code limit}.
		 */
		public static Session open(Shape shape, Load load, int limit, long seed) {
			Session s = new Session(shape, load, false, limit, seed);
			s.nextArrival = s.interArrival();
			return s;
		}

		/**
		 * Exactly {@code concurrency} requests in service at all times, no think time:
		 * one point of a sweep.
		 */
		public static Session closed(Shape shape, int concurrency, long seed) {
			return new Session(shape, null, true, concurrency, seed);
		}

		public int limit() {
			return limit;
		}

		public void limit(int limit) {
			this.limit = Math.max(1, Math.min(MAX_IN_SERVICE, limit));
		}

		public long nowNanos() {
			return now;
		}

		/**
		 * Runs for {@code seconds}, reporting to the recorder and the listener (either
		 * may be null).
		 */
		public Measurement run(double seconds, ConcurrencyRecorder recorder, CompletionListener listener) {
			long end = now + Math.round(seconds * 1e9);
			long completions = 0;
			long dropped = 0;
			double[] responseMillis = new double[1024];
			while (now < end) {
				now += step;
				if (!closedLoop) {
					while (nextArrival <= now) {
						if (queueSize == queue.length) {
							dropped++;
						}
						else {
							queue[(queueHead + queueSize) % queue.length] = now;
							queueSize++;
							if (recorder != null) {
								recorder.waitStarted(now);
							}
						}
						nextArrival += interArrival();
					}
				}
				if (!closedLoop) {
					long timeout = Math.round(load.queueTimeoutSeconds() * 1e9);
					while (queueSize > 0 && now - queue[queueHead] > timeout) {
						queueHead = (queueHead + 1) % queue.length;
						queueSize--;
						dropped++;
						if (recorder != null) {
							recorder.waitEnded(now);
						}
					}
				}
				while (inService < limit && (closedLoop || queueSize > 0)) {
					if (!closedLoop) {
						queueHead = (queueHead + 1) % queue.length;
						queueSize--;
						if (recorder != null) {
							recorder.waitEnded(now);
						}
					}
					admit(recorder);
				}
				double rate = inCpu == 0 ? 0 : Math.min(1.0, (double) shape.cores() / inCpu)
						/ (1 + shape.contention() * Math.max(0, inCpu - shape.cores()));
				double cpuWork = rate * step / 1e6;
				double elapsedMillis = step / 1e6;
				int leftCpu = 0;
				for (int i = inService - 1; i >= 0; i--) {
					if (cpuLeft[i] > 0) {
						cpuLeft[i] -= cpuWork;
						if (cpuLeft[i] <= 0) {
							leftCpu++;
						}
					}
					else {
						ioLeft[i] -= elapsedMillis;
						if (ioLeft[i] <= 0) {
							long admitted = admittedAt[i];
							int last = inService - 1;
							cpuLeft[i] = cpuLeft[last];
							ioLeft[i] = ioLeft[last];
							admittedAt[i] = admittedAt[last];
							inService--;
							if (recorder != null) {
								recorder.departed(admitted, now);
							}
							if (completions == responseMillis.length) {
								responseMillis = Arrays.copyOf(responseMillis, responseMillis.length * 2);
							}
							responseMillis[(int) completions++] = (now - admitted) / 1e6;
							if (listener != null) {
								listener.completed(this, admitted, now, inService + 1);
							}
						}
					}
				}
				inCpu -= leftCpu;
			}
			return measure(seconds, completions, responseMillis, dropped);
		}

		private void admit(ConcurrencyRecorder recorder) {
			int i = inService++;
			cpuLeft[i] = shape.cpuMillis() * (0.5 + random.nextDouble());
			ioLeft[i] = shape.ioMillis() * (0.5 + random.nextDouble());
			admittedAt[i] = now;
			inCpu++;
			if (recorder != null) {
				recorder.arrived(now);
			}
		}

		private double interArrival() {
			double phase = Math.sin(2 * Math.PI * (now / 1e9) / load.periodSeconds());
			double fraction = load.lowFraction() + (load.highFraction() - load.lowFraction()) * (0.5 + 0.5 * phase);
			double ratePerNano = fraction * shape.maxThroughput() / 1e9;
			return -Math.log(1 - random.nextDouble()) / ratePerNano;
		}

	}

	static Measurement measure(double seconds, long completions, double[] responseMillis, long dropped) {
		double[] sorted = Arrays.copyOf(responseMillis, (int) completions);
		Arrays.sort(sorted);
		double sum = 0;
		for (double v : sorted) {
			sum += v;
		}
		double mean = completions == 0 ? 0 : sum / completions;
		double p99 = completions == 0 ? 0 : sorted[(int) Math.min(completions - 1, Math.ceil(0.99 * completions) - 1)];
		return new Measurement(seconds, completions, completions / seconds, mean, p99, dropped);
	}

}
