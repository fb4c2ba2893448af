package io.pathfence.discovery.trace;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

import static io.pathfence.discovery.trace.Spans.MS;
import static io.pathfence.discovery.trace.Spans.client;
import static io.pathfence.discovery.trace.Spans.internal;
import static io.pathfence.discovery.trace.Spans.server;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

class CriticalPathTests {

	private static CriticalPath of(Span... spans) {
		TraceTree tree = TraceTree.of(List.of(spans)).get(0);
		return CriticalPath.of(tree, spans[0]);
	}

	@Test
	void mutuallyExclusiveChildrenAreBothOnThePath() {
		CriticalPath path = of(server("r", null, "orders", 0, 100), server("a", "r", "a", 10, 30),
				server("b", "r", "b", 40, 70));
		assertThat(path.totalNanos()).isEqualTo(100 * MS);
		assertThat(path.byService()).containsOnly(entry("orders", 50 * MS), entry("a", 20 * MS), entry("b", 30 * MS));
	}

	@Test
	void aCompletelyOverlappedChildIsNotOnThePath() {
		CriticalPath path = of(server("r", null, "orders", 0, 100), server("a", "r", "a", 10, 80),
				server("b", "r", "b", 20, 50));
		assertThat(path.byService()).containsOnly(entry("orders", 30 * MS), entry("a", 70 * MS));
	}

	@Test
	void aPartiallyOverlappingChildJoinsThePathWhereThePreviousEnds() {
		// a from 10 to 50, b from 30 to 90: together t4 - t1 = 80, a all its 40, b the 40
		// after a.
		CriticalPath path = of(server("r", null, "orders", 0, 100), server("a", "r", "a", 10, 50),
				server("b", "r", "b", 30, 90));
		assertThat(path.byService()).containsOnly(entry("orders", 20 * MS), entry("a", 40 * MS), entry("b", 40 * MS));
	}

	@Test
	void theRulesRepeatWithinTheCriticalPartOfEachChild() {
		// b is on the path from 50 to 90 only; its child c (40 to 70) counts from 50.
		CriticalPath path = of(server("r", null, "orders", 0, 100), server("a", "r", "a", 10, 50),
				server("b", "r", "b", 30, 90), server("c", "b", "c", 40, 70));
		assertThat(path.byService()).containsOnly(entry("orders", 20 * MS), entry("a", 40 * MS), entry("b", 20 * MS),
				entry("c", 20 * MS));
		assertThat(path.byDownstream()).containsOnly(entry("orders", 20 * MS), entry("a", 40 * MS),
				entry("b", 40 * MS));
	}

	@Test
	void aClientSpansOwnTimeIsTheCallees() {
		// The 4 ms between the client span and payment's server span is the caller
		// waiting for payment.
		CriticalPath path = of(server("r", null, "orders", 0, 100), client("c", "r", "orders", "payment", 10, 50),
				server("p", "c", "payment", 12, 48), client("c2", "p", "payment", "bank", 20, 30),
				server("b", "c2", "bank", 21, 29));
		assertThat(path.byService()).containsOnly(entry("orders", 60 * MS), entry("payment", 30 * MS),
				entry("bank", 10 * MS));
		assertThat(path.byDownstream()).containsOnly(entry("orders", 60 * MS), entry("payment", 40 * MS));
	}

	@Test
	void internalSpansOfTheServiceAreItsOwnWorkAndTheirCallsItsDownstreams() {
		CriticalPath path = of(server("r", null, "orders", 0, 100), internal("async", "r", "orders", 5, 60),
				client("c", "async", "orders", "shipping", 10, 40));
		assertThat(path.byService()).containsOnly(entry("orders", 70 * MS), entry("shipping", 30 * MS));
		assertThat(path.byDownstream()).containsOnly(entry("orders", 70 * MS), entry("shipping", 30 * MS));
	}

	@Test
	void childrenAreClippedToTheirParent() {
		// A child ending after its parent (clock skew, a task not waited for) counts to
		// the parent's end.
		CriticalPath path = of(server("r", null, "orders", 0, 100), server("late", "r", "late", 90, 130),
				server("zero", "r", "zero", 50, 50));
		assertThat(path.byService()).containsOnly(entry("orders", 90 * MS), entry("late", 10 * MS));
	}

	@Test
	void thePartsOfEveryRequestAddUpToItsDuration() {
		Random random = new Random(11);
		for (int trial = 0; trial < 200; trial++) {
			List<Span> spans = new ArrayList<>();
			long rootEnd = 50 + random.nextInt(500);
			spans.add(server("s0", null, "root", 0, rootEnd));
			for (int i = 1; i < 30; i++) {
				Span parent = spans.get(random.nextInt(spans.size()));
				long start = parent.startNanos() / MS + random.nextInt(60) - 10;
				long end = start + random.nextInt(120);
				String service = "svc" + random.nextInt(6);
				spans.add(random.nextBoolean() ? server("s" + i, parent.spanId(), service, start, end)
						: client("s" + i, parent.spanId(), parent.service(), service, start, end));
			}
			CriticalPath path = of(spans.toArray(Span[]::new));
			assertThat(sum(path.byService())).isEqualTo(rootEnd * MS);
			assertThat(sum(path.byDownstream())).isEqualTo(rootEnd * MS);
		}
	}

	private static long sum(Map<String, Long> parts) {
		return parts.values().stream().mapToLong(Long::longValue).sum();
	}

}
