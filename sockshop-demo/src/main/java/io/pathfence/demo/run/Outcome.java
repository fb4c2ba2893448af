package io.pathfence.demo.run;

/**
 * What became of one request, as the user sees it.
 */
enum Outcome {

	/** Answered 2xx. */
	OK,

	/** Answered 503: refused at once (PathFence's queue full or wait timed out). */
	REJECTED,

	/**
	 * No answer: the connection failed or nothing came back in time, at the load
	 * generator or at a service on the way (which says so with 502 or 504).
	 */
	CONNECTION_OR_TIMEOUT,

	/** Any other answer. */
	OTHER_ERROR;

	static Outcome ofStatus(int status) {
		if (status >= 200 && status < 300) {
			return OK;
		}
		if (status == 503) {
			return REJECTED;
		}
		if (status == 502 || status == 504) {
			return CONNECTION_OR_TIMEOUT;
		}
		return OTHER_ERROR;
	}

}
