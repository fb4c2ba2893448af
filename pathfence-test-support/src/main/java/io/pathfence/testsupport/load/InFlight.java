package io.pathfence.testsupport.load;

import java.time.Duration;

/**
 * The requests a load has out, bounded, and a wait for the last of them to come back.
 */
final class InFlight {

	private int count;

	synchronized boolean tryAdd(int max) {
		if (this.count >= max) {
			return false;
		}
		this.count++;
		return true;
	}

	synchronized void remove() {
		if (--this.count == 0) {
			notifyAll();
		}
	}

	synchronized int count() {
		return this.count;
	}

	/**
	 * Waits until none is out or {@code limit} has passed; says how many are still out.
	 */
	synchronized int awaitNone(Duration limit) throws InterruptedException {
		long deadline = System.nanoTime() + limit.toNanos();
		for (long left = limit.toNanos(); this.count > 0 && left > 0; left = deadline - System.nanoTime()) {
			wait(Math.max(1, left / 1_000_000));
		}
		return this.count;
	}

}
