package io.pathfence.demo.grid;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.pathfence.demo.run.Mode;
import io.pathfence.demo.run.ModeResult;
import io.pathfence.demo.run.PathStats;
import io.pathfence.demo.run.Trace;
import io.pathfence.demo.topology.Topologies;
import io.pathfence.demo.topology.Topology;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The criteria, judged on made-up cells: each one is met at its bound and missed
 * just past it, and a comparison mode that did not run is not judged.
 */
class CriteriaTests {

	@Test
	void pathFenceWithinItsBoundsOfAsyncAndBaselineIsMetAndJustPastThemIsMissed() throws IOException {
		Topology network = Topologies.load("social-network");
		ModeResult async = cell(network, Mode.ASYNC, 1000, 50, 0);
		ModeResult baseline = cell(network, Mode.BASELINE, 4300, 50, 0);

		Criteria.Checks within = Criteria.judge(network, cell(network, Mode.PATHFENCE_SCT, 1290, 50, 0), async,
				baseline);
		assertThat(within.versusAsync().met()).as("1290 ms against 1.3 x 1000 ms").isTrue();
		assertThat(within.versusBaseline().met()).as("1290 ms against 0.3 x 4300 ms").isTrue();
		assertThat(within.versusBaseline().cell()).isEqualTo("met: 1290 / 4300 ms = 0.30 x");

		Criteria.Checks past = Criteria.judge(network, cell(network, Mode.PATHFENCE_SCT, 1310, 50, 0), async, baseline);
		assertThat(past.versusAsync().met()).as("1310 ms against 1.3 x 1000 ms").isFalse();
		assertThat(past.versusBaseline().met()).as("1310 ms against 0.3 x 4300 ms").isFalse();
		assertThat(past.versusAsync().cell()).isEqualTo("**MISSED**: 1310 / 1000 ms = 1.31 x");
	}

	@Test
	void theOtherPathsMustStayWithinOneAndAHalfTimesTheirFaultFreeP99() throws IOException {
		Topology network = Topologies.load("social-network");

		assertThat(
				Criteria.judge(network, cell(network, Mode.PATHFENCE_SCT, 900, 75, 0), null, null).otherPaths().met())
			.as("75 ms against 50 ms fault-free: 1.5 x")
			.isTrue();
		Criteria.Check missed = Criteria.judge(network, cell(network, Mode.PATHFENCE_SCT, 900, 76, 0), null, null)
			.otherPaths();
		assertThat(missed.met()).isFalse();
		assertThat(missed.figures()).contains("user-timeline 76 / 50 ms = 1.52 x").contains("local");
	}

	@Test
	void onlySockShopMustDropNothingAndAModeThatDidNotRunIsNotJudged() throws IOException {
		Topology shop = Topologies.load("sock-shop");
		Topology network = Topologies.load("social-network");

		assertThat(Criteria.judge(shop, cell(shop, Mode.PATHFENCE_SCT, 300, 50, 0), null, null).noDrops().met())
			.isTrue();
		assertThat(Criteria.judge(shop, cell(shop, Mode.PATHFENCE_SCT, 300, 50, 3), null, null).noDrops().met())
			.isFalse();
		Criteria.Checks network3 = Criteria.judge(network, cell(network, Mode.PATHFENCE_SCT, 300, 50, 3), null, null);
		assertThat(network3.noDrops()).isNull();
		assertThat(network3.versusAsync()).isNull();
		assertThat(network3.versusBaseline()).isNull();
		assertThat(network3.judged()).containsExactly(network3.otherPaths());
	}

	/**
	 * A cell whose overall p99 is {@code p99}, whose other paths take {@code otherP99}
	 * against 50 ms fault-free, and whose kernel dropped {@code drops} connections.
	 */
	private static ModeResult cell(Topology topology, Mode mode, double p99, double otherP99, long drops) {
		Map<String, PathStats> faultFree = new LinkedHashMap<>();
		Map<String, PathStats> faulted = new LinkedHashMap<>();
		for (String path : topology.paths()) {
			faultFree.put(path, stats(50));
			faulted.put(path, stats(topology.faultyPaths().contains(path) ? p99 : otherP99));
		}
		return new ModeResult(mode, Trace.LARGE, faultFree, faulted, stats(p99), Map.of(), 10, List.of(), 0, 0, null,
				null, drops);
	}

	private static PathStats stats(double p99) {
		return new PathStats(100, p99 / 4, p99 / 5, p99, p99, p99, 100, 0, 0, 0, 0);
	}

}
