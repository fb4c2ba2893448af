package io.pathfence.demo.run;

import java.io.IOException;

/**
 * What stops the stalled service for one millibottleneck and continues it: signals to its
 * process when the runner started the shop ({@link Cluster#stallSwitch}), or an HTTP
 * trigger next to it when the shop runs in a cluster ({@link RemoteStallTrigger}). Either
 * way the runner decides when, so stalls line up with the bursts.
 */
@FunctionalInterface
interface StallSwitch {

	/**
	 * Stops the service for {@code lengthNanos}, then continues it; returns once it runs
	 * again. The service is continued also when this fails or is interrupted.
	 */
	void stall(long lengthNanos) throws IOException, InterruptedException;

}
