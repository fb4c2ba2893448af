package io.pathfence.testsupport.load;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@link Recorder} that keeps a {@link PathResult} for each stream's path.
 */
public final class PathResults implements Recorder {

	private final Map<String, PathResult> results = new LinkedHashMap<>();

	public PathResults(List<OpenLoopLoad.Stream> streams) {
		streams.forEach((stream) -> this.results.computeIfAbsent(stream.path(), PathResult::new));
	}

	@Override
	public void record(String path, double dueSeconds, long latencyMicros, Answer answer) {
		PathResult result = this.results.get(path);
		if (result == null) {
			throw new IllegalArgumentException("No stream has the path " + path);
		}
		result.record(dueSeconds, latencyMicros, answer);
	}

	public PathResult get(String path) {
		return this.results.get(path);
	}

	/** Each path's result, in the order of the streams. */
	public Map<String, PathResult> byPath() {
		return Collections.unmodifiableMap(this.results);
	}

}
