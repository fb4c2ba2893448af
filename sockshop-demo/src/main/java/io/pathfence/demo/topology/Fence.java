package io.pathfence.demo.topology;

import java.time.Duration;
import java.util.List;

/**
 * PathFence at the shared service: a pool of permits split into path reservations and a
 * local reservation (the starter's {@code pathfence.*} settings), and how SCT tunes them.
 *
 * @param poolSize the permits the reservations share
 * @param paths the path reservations, in order
 * @param localPermits the local reservation's size, or {@code null} for what the paths
 * leave of the pool
 * @param localMaxQueue how many local requests may wait
 * @param localQueueTimeout how long one may wait
 * @param tuning how SCT sizes the reservations in the mode that tunes
 */
public record Fence(int poolSize, List<FencePath> paths, Integer localPermits, int localMaxQueue,
		Duration localQueueTimeout, Tuning tuning) {

	public Fence {
		paths = List.copyOf(paths);
	}

	/** The permits of every path reservation together. */
	public int pathPermits() {
		return this.paths.stream().mapToInt(FencePath::permits).sum();
	}

}
