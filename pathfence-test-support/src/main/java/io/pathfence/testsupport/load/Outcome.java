package io.pathfence.testsupport.load;

/**
 * What became of one request, as its user sees it.
 */
public enum Outcome {

	/** Answered 2xx. */
	OK,

	/** Answered 503: refused at once (a fence's queue full or its wait timed out). */
	REJECTED,

	/**
	 * No answer: the connection failed or nothing came back in time, at the load
	 * generator or at a service on the way (which says so with 502 or 504).
	 */
	CONNECTION_OR_TIMEOUT,

	/** Any other answer. */
	OTHER_ERROR;

	/** The outcome of an answer with this status. */
	public static Outcome ofStatus(int status) {
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
