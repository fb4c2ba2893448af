package io.pathfence.demo.run;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Millibottlenecks on one downstream, once per period for the stall length, on the
 * runner's clock, through a {@link StallSwitch}: its process stopped (SIGSTOP) and
 * continued (SIGCONT), or a CPU burner on its core. Either way its listening socket stays
 * open, so the kernel keeps accepting connections into its backlog while nothing answers:
 * to its callers it is a service that has stalled. The service always runs again at the
 * end of a stall, also when the run is interrupted.
 */
final class Millibottlenecks implements Runnable {

	private final StallSwitch stallSwitch;

	private final String service;

	private final long firstAtNanos;

	private final long lengthNanos;

	private final long periodNanos;

	private final long endNanos;

	private final long originNanos;

	private final List<double[]> stalls = new ArrayList<>();

	private volatile boolean stopped;

	/**
	 * @param stallSwitch what stops and continues the service
	 * @param service the service's name, for messages
	 * @param originNanos the {@link System#nanoTime()} that stall times are reported from
	 */
	Millibottlenecks(StallSwitch stallSwitch, String service, long originNanos, long firstAtNanos, long lengthNanos,
			long periodNanos, long endNanos) {
		this.stallSwitch = stallSwitch;
		this.service = service;
		this.originNanos = originNanos;
		this.firstAtNanos = firstAtNanos;
		this.lengthNanos = lengthNanos;
		this.periodNanos = periodNanos;
		this.endNanos = endNanos;
	}

	@Override
	public void run() {
		try {
			for (long at = this.firstAtNanos; at + this.lengthNanos <= this.endNanos; at += this.periodNanos) {
				sleepUntil(at);
				long begun = System.nanoTime();
				this.stopped = true;
				try {
					this.stallSwitch.stall(this.lengthNanos);
				}
				finally {
					this.stopped = false;
					synchronized (this.stalls) {
						this.stalls.add(new double[] { (begun - this.originNanos) / 1e9,
								(System.nanoTime() - this.originNanos) / 1e9 });
					}
				}
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not stop or continue " + this.service + ": " + ex.getMessage(), ex);
		}
	}

	static void sleepUntil(long nanos) throws InterruptedException {
		long wait = nanos - System.nanoTime();
		if (wait > 0) {
			Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
		}
	}

	/** Whether the service is stopped now. */
	boolean isStopped() {
		return this.stopped;
	}

	/** Each stall's start and end, in seconds since the origin. */
	List<double[]> stalls() {
		synchronized (this.stalls) {
			return List.copyOf(this.stalls);
		}
	}

}
