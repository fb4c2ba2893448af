package io.pathfence.testsupport.load;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

/**
 * How an {@link OpenLoopLoad} sends one request of a stream. It must not block the
 * caller, which is the generator's clock: the answer comes later, through the stage.
 */
public interface Sender {

	/**
	 * Sends one request of {@code stream}; the stage completes with what came back, or
	 * with {@link Answer#NONE} when nothing did.
	 */
	CompletionStage<Answer> send(OpenLoopLoad.Stream stream);

	/**
	 * How long a request may take before it is given up: what its user waits at most.
	 */
	Duration requestTimeout();

}
