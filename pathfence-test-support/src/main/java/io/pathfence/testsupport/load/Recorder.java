package io.pathfence.testsupport.load;

/**
 * Where an {@link OpenLoopLoad} reports each request once it has its answer. Called from
 * the threads that complete the answers, so an implementation must be thread-safe.
 */
@FunctionalInterface
public interface Recorder {

	/**
	 * One request.
	 * @param path the stream's path
	 * @param dueSeconds when it was due to be sent, in seconds since the load began
	 * @param latencyMicros from when it was due to when its answer came
	 * @param answer what came back
	 */
	void record(String path, double dueSeconds, long latencyMicros, Answer answer);

}
