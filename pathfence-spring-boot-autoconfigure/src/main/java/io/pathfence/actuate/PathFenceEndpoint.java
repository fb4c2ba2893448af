package io.pathfence.actuate;

import java.util.List;
import java.util.Map;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

import io.pathfence.core.PathFence;
import io.pathfence.core.PathFigures;
import io.pathfence.tuning.PathTuner;
import io.pathfence.tuning.TuningDecision;

/**
 * The {@code pathfence} actuator endpoint: every reservation's figures, and a write
 * operation that resizes a path's reservation at run time.
 */
@Endpoint(id = "pathfence")
public class PathFenceEndpoint {

	private final PathFence fence;

	private final PathTuner tuner;

	/**
	 * @param fence the reservations
	 * @param tuner the online tuner, or {@code null} when tuning is off
	 */
	public PathFenceEndpoint(PathFence fence, PathTuner tuner) {
		this.fence = fence;
		this.tuner = tuner;
	}

	@ReadOperation
	public FenceDescriptor fence() {
		return new FenceDescriptor(this.fence.poolSize(), this.fence.figures(),
				(this.tuner != null) ? this.tuner.decisions() : null);
	}

	@ReadOperation
	public PathFigures path(@Selector String path) {
		return this.fence.hasPath(path) ? this.fence.figures(path) : null;
	}

	/**
	 * Resizes a path's reservation. Refused, with the reason, when the path is unknown or
	 * the reservations would no longer fit the pool.
	 */
	@WriteOperation
	public PathFigures resize(@Selector String path, int permits) {
		if (!this.fence.hasPath(path)) {
			return null;
		}
		try {
			this.fence.resize(path, permits);
		}
		catch (IllegalArgumentException ex) {
			// A refused size is the caller's mistake: 400 with the reason, not a server
			// error.
			throw new InvalidEndpointRequestException("Cannot resize path '" + path + "': " + ex.getMessage(),
					ex.getMessage());
		}
		return this.fence.figures(path);
	}

	/**
	 * What the endpoint reads.
	 *
	 * @param poolSize permits the reservations share
	 * @param paths every reservation, paths first and local last
	 * @param tuning each tuned path's latest decision; absent when tuning is off
	 */
	public record FenceDescriptor(int poolSize, List<PathFigures> paths, Map<String, TuningDecision> tuning) {
	}

}
