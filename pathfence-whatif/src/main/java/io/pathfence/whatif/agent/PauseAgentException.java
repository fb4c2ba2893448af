package io.pathfence.whatif.agent;

import java.io.IOException;

/**
 * The agent refused a command or answered something that is not its protocol. The message
 * carries the agent's own reason.
 */
public class PauseAgentException extends IOException {

	private static final long serialVersionUID = 1L;

	/**
	 * A refusal or a malformed reply.
	 * @param message what the agent said, or what was wrong with its reply
	 */
	public PauseAgentException(String message) {
		super(message);
	}

}
