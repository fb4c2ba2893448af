package io.pathfence.core;

/**
 * A consistent snapshot of one reservation.
 *
 * @param path the path's name ({@link PathFence#LOCAL} for the local reservation)
 * @param local whether this is the local reservation
 * @param permits the reservation's size
 * @param active tasks of this path running now
 * @param queued tasks of this path waiting for a permit
 * @param borrowed for a path, its permits lent to local tasks now; for the local
 * reservation, permits its tasks hold borrowed from paths
 * @param maxQueue how many tasks may wait before new ones are rejected
 */
public record PathFigures(String path, boolean local, int permits, int active, int queued, int borrowed, int maxQueue) {
}
