package io.pathfence.it;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.pathfence.testsupport.load.JdkHttpSender;
import io.pathfence.testsupport.load.OpenLoopLoad;
import io.pathfence.testsupport.load.OpenLoopLoad.Stream;
import io.pathfence.testsupport.load.PathResult;
import io.pathfence.testsupport.load.PathResults;

/**
 * The scenarios' open-loop load from the test JVM to containers' mapped ports: every
 * answer is awaited, so a scenario judges all it sent, and each path's figures are
 * printed.
 */
final class ScenarioLoad {

	private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(20);

	private ScenarioLoad() {
	}

	/** Runs every stream at once for {@code duration} and waits for every answer. */
	static Map<String, PathResult> run(Duration duration, Stream... streams) {
		List<Stream> all = List.of(streams);
		PathResults results = new PathResults(all);
		try (JdkHttpSender sender = new JdkHttpSender(Duration.ofSeconds(10), REQUEST_TIMEOUT)) {
			int unanswered = new OpenLoopLoad(sender).run(all, duration, 0, REQUEST_TIMEOUT.plusSeconds(5), results);
			if (unanswered > 0) {
				throw new IllegalStateException("the load's answers did not all arrive: " + unanswered + " still out");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("interrupted while the load ran", ex);
		}
		results.byPath().values().forEach((result) -> Figures.print("  " + result));
		return results.byPath();
	}

}
