package io.pathfence.whatif.rounds;

import java.io.IOException;

import io.pathfence.whatif.agent.PauseResult;

/**
 * What pauses one service for a round: its agent's client
 * ({@code PauseAgentClient::pause}), or anything that stops the service as the agent
 * does.
 */
@FunctionalInterface
public interface Pauser {

	/**
	 * Pauses the service and returns once it runs again.
	 * @param round the round
	 * @param nanos the pause
	 * @return the pause as done
	 * @throws IOException if the service could not be paused
	 */
	PauseResult pause(long round, long nanos) throws IOException;

}
