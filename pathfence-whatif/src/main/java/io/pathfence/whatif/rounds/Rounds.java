package io.pathfence.whatif.rounds;

/**
 * Numbers rounds and says when one is due: one starts each time the target's served calls
 * cross the next multiple of the batch, counted from where they were at the start. When
 * the count jumps over several multiples at once, one round starts: the debts it pays are
 * the calls served, not the rounds.
 */
final class Rounds {

	private final long batch;

	private final long origin;

	private long next;

	private long round;

	Rounds(long batch, long targetServedAtStart) {
		if (batch < 1) {
			throw new IllegalArgumentException("batch must be at least 1, was " + batch);
		}
		this.batch = batch;
		this.origin = targetServedAtStart;
		this.next = targetServedAtStart + batch;
	}

	/**
	 * The round to start now, or 0 when none is due.
	 * @param targetServed the target's served calls so far
	 */
	long due(long targetServed) {
		if (targetServed < this.next) {
			return 0;
		}
		this.round++;
		this.next = this.origin + ((targetServed - this.origin) / this.batch + 1) * this.batch;
		return this.round;
	}

	/** The last round started, 0 before the first. */
	long last() {
		return this.round;
	}

}
