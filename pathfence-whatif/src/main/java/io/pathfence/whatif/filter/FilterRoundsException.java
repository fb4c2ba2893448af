package io.pathfence.whatif.filter;

import java.io.IOException;

/**
 * The filter refused a round's control request, or answered something that is not the
 * rounds' protocol. The message carries the status and the filter's own reason.
 */
public class FilterRoundsException extends IOException {

	private static final long serialVersionUID = 1L;

	private final int status;

	/**
	 * A refusal or a malformed answer.
	 * @param status the HTTP status the filter answered
	 * @param message what the filter said, or what was wrong with its answer
	 */
	public FilterRoundsException(int status, String message) {
		super(message);
		this.status = status;
	}

	/**
	 * The HTTP status the filter answered.
	 * @return the status
	 */
	public int status() {
		return this.status;
	}

}
