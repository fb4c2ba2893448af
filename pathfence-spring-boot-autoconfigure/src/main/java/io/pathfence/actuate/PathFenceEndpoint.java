package io.pathfence.actuate;

import java.util.List;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

import io.pathfence.core.PathFence;
import io.pathfence.core.PathFigures;
import io.pathfence.learning.LearnedPaths;
import io.pathfence.tuning.PathTuner;
import io.pathfence.tuning.TuningDecision;

/**
 * The {@code pathfence} actuator endpoint: every reservation's figures, what discovery
 * learned (routes, their downstreams and calls, the paths, a {@code pathfence.paths}
 * block to paste), and a write operation that resizes a path's reservation at run time.
 * Read-only unless {@code management.endpoint.pathfence.access=unrestricted}: whoever can
 * resize can set a path to 0 permits. Every resize, done or refused, is logged.
 */
@Endpoint(id = "pathfence", defaultAccess = Access.READ_ONLY)
public class PathFenceEndpoint {

	private static final Log logger = LogFactory.getLog(PathFenceEndpoint.class);

	private final PathFence fence;

	private final PathTuner tuner;

	private final LearnedPaths learned;

	/**
	 * @param fence the reservations
	 * @param tuner the online tuner, or {@code null} when tuning is off
	 */
	public PathFenceEndpoint(PathFence fence, PathTuner tuner) {
		this(fence, tuner, null);
	}

	/**
	 * @param fence the reservations
	 * @param tuner the online tuner, or {@code null} when tuning is off
	 * @param learned what discovery learned, or {@code null} when it is off
	 */
	public PathFenceEndpoint(PathFence fence, PathTuner tuner, LearnedPaths learned) {
		this.fence = fence;
		this.tuner = tuner;
		this.learned = learned;
	}

	@ReadOperation
	public FenceDescriptor fence() {
		return new FenceDescriptor(this.fence.poolSize(), this.fence.figures(),
				(this.tuner != null) ? this.tuner.decisions() : null,
				(this.learned != null) ? this.learned.report() : null);
	}

	@ReadOperation
	public PathFigures path(@Selector String path) {
		return this.fence.hasPath(path) ? this.fence.figures(path) : null;
	}

	/**
	 * Resizes a path's reservation. Refused, with the reason, when the path is unknown or
	 * the reservations would no longer fit the pool. Over HTTP the
	 * {@link PathFenceEndpointWebExtension} answers instead, with the status each outcome
	 * calls for.
	 */
	@WriteOperation
	public PathFigures resize(@Selector String path, int permits) {
		Resize resize = attemptResize(path, permits);
		if (resize.refusal() != null) {
			throw new InvalidEndpointRequestException(resize.refusal(), resize.refusal());
		}
		return resize.figures();
	}

	/**
	 * The selector as it may be logged: it comes from the request, and a line break in it
	 * would forge a log line.
	 */
	private static String loggable(String text) {
		StringBuilder safe = new StringBuilder(text.length());
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			safe.append(Character.isISOControl(c) ? '_' : c);
		}
		return safe.toString();
	}

	/** Resizes a path's reservation if it can, and logs what it did. */
	Resize attemptResize(String path, int permits) {
		if (!this.fence.hasPath(path)) {
			String refusal = "No path '" + path + "'; paths: " + this.fence.pathNames();
			logger.warn(
					"Refused to resize path '" + loggable(path) + "' to " + permits + " permits: " + loggable(refusal));
			return new Resize(null, false, refusal);
		}
		int before = this.fence.figures(path).permits();
		try {
			this.fence.resize(path, permits);
		}
		catch (IllegalArgumentException ex) {
			String refusal = "Cannot resize path '" + path + "' to " + permits + " permits: " + ex.getMessage();
			logger.warn("Refused to resize path '" + path + "' to " + permits + " permits: " + ex.getMessage());
			return new Resize(null, true, refusal);
		}
		logger.info("Resized path '" + path + "' from " + before + " to " + permits + " permits");
		return new Resize(this.fence.figures(path), true, null);
	}

	/**
	 * What a resize did.
	 *
	 * @param figures the path's figures afterwards; {@code null} when refused
	 * @param known whether the path exists
	 * @param refusal why the resize was refused; {@code null} when it was done
	 */
	record Resize(PathFigures figures, boolean known, String refusal) {
	}

	/**
	 * What the endpoint reads.
	 *
	 * @param poolSize permits the reservations share
	 * @param paths every reservation, paths first and local last
	 * @param tuning each tuned path's latest decision; absent when tuning is off
	 * @param discovery the learned routes and paths; absent when discovery is off
	 */
	public record FenceDescriptor(int poolSize, List<PathFigures> paths, Map<String, TuningDecision> tuning,
			LearnedPaths.Report discovery) {
	}

}
