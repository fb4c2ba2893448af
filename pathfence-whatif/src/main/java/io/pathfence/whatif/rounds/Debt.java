package io.pathfence.whatif.rounds;

/**
 * One service's pause time owed: each call it serves adds its pause per call, and each
 * round it is paid takes the whole nanoseconds owed, keeping the fraction for the next.
 */
final class Debt {

	private final double nanosPerCall;

	private double owed;

	Debt(double nanosPerCall) {
		this.nanosPerCall = nanosPerCall;
	}

	void accrue(double calls) {
		this.owed += calls * this.nanosPerCall;
	}

	/** Takes what is owed, in whole nanoseconds. */
	long take() {
		long whole = (long) Math.floor(this.owed);
		this.owed -= whole;
		return whole;
	}

	double owedNanos() {
		return this.owed;
	}

}
