package io.pathfence.discovery.trace;

import java.util.List;

import org.junit.jupiter.api.Test;

import static io.pathfence.discovery.trace.Spans.server;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class TraceTreeTests {

	@Test
	void childrenComeByStartTheLongestFirst() {
		TraceTree tree = TraceTree.of(List.of(server("r", null, "a", 0, 100), server("x", "r", "b", 30, 40),
				server("y", "r", "b", 10, 20), server("z", "r", "b", 10, 50)))
			.get(0);
		Span root = tree.spans().iterator().next();
		assertThat(tree.children(root)).extracting(Span::spanId).containsExactly("z", "y", "x");
		assertThat(tree.parent(root)).isNull();
	}

	@Test
	void aSpanWhoseParentIsMissingIsARoot() {
		TraceTree tree = TraceTree.of(List.of(server("x", "gone", "a", 0, 1))).get(0);
		assertThat(tree.parent(tree.spans().iterator().next())).isNull();
	}

	@Test
	void anIdUsedTwiceIsRefusedNamingTheSpan() {
		assertThatExceptionOfType(InvalidTraceException.class)
			.isThrownBy(() -> TraceTree.of(List.of(server("x", null, "a", 0, 1), server("x", null, "b", 0, 1))))
			.satisfies((e) -> {
				assertThat(e.spanId()).isEqualTo("x");
				assertThat(e.field()).isEqualTo(TraceTree.ID);
			});
	}

	@Test
	void parentsThatFormACycleAreRefusedNamingASpanOfIt() {
		assertThatExceptionOfType(InvalidTraceException.class)
			.isThrownBy(() -> TraceTree.of(List.of(server("r", null, "a", 0, 9), server("x", "y", "a", 0, 1),
					server("y", "z", "a", 0, 1), server("z", "x", "a", 0, 1))))
			.satisfies((e) -> {
				assertThat(e.spanId()).isIn("x", "y", "z");
				assertThat(e.field()).isEqualTo(TraceTree.PARENT);
			});
		assertThatExceptionOfType(InvalidTraceException.class)
			.isThrownBy(() -> TraceTree.of(List.of(server("self", "self", "a", 0, 1))));
	}

}
