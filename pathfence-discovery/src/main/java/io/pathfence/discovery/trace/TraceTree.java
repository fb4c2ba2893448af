package io.pathfence.discovery.trace;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The spans of one trace linked to their children. A span whose parent is not in the
 * trace (not collected, or sampled away) is a root.
 */
public final class TraceTree {

	/** Children by start, the longest first when two start together, then by id. */
	static final Comparator<Span> BY_START = Comparator.comparingLong(Span::startNanos)
		.thenComparing(Comparator.comparingLong(Span::endNanos).reversed())
		.thenComparing(Span::spanId);

	/** The field {@link InvalidTraceException} names for a duplicate id. */
	public static final String ID = "id";

	/** The field {@link InvalidTraceException} names for a cycle. */
	public static final String PARENT = "parent";

	private final String traceId;

	private final Map<String, Span> spans;

	private final Map<String, List<Span>> children = new HashMap<>();

	private TraceTree(String traceId, List<Span> spans) {
		this.traceId = traceId;
		this.spans = new LinkedHashMap<>();
		for (Span span : spans) {
			if (this.spans.putIfAbsent(span.spanId(), span) != null) {
				throw new InvalidTraceException(traceId, span.spanId(), ID, "the id appears twice in the trace");
			}
		}
		checkAcyclic();
		for (Span span : spans) {
			if (span.parentId() != null && this.spans.containsKey(span.parentId())) {
				this.children.computeIfAbsent(span.parentId(), (id) -> new ArrayList<>()).add(span);
			}
		}
		this.children.values().forEach((list) -> list.sort(BY_START));
	}

	/**
	 * The spans grouped into their traces, sorted by trace id.
	 * @throws InvalidTraceException if a span id appears twice in one trace, or a span is
	 * its own ancestor
	 */
	public static List<TraceTree> of(Collection<Span> spans) {
		Map<String, List<Span>> byTrace = new TreeMap<>();
		for (Span span : spans) {
			byTrace.computeIfAbsent(span.traceId(), (id) -> new ArrayList<>()).add(span);
		}
		List<TraceTree> trees = new ArrayList<>(byTrace.size());
		byTrace.forEach((id, list) -> trees.add(new TraceTree(id, list)));
		return trees;
	}

	/** Walks up from every span once; a span met again on its own walk is in a cycle. */
	private void checkAcyclic() {
		Map<String, Boolean> done = new HashMap<>();
		for (Span start : this.spans.values()) {
			Set<String> walk = new LinkedHashSet<>();
			Span span = start;
			while (span != null && !done.containsKey(span.spanId())) {
				if (!walk.add(span.spanId())) {
					throw new InvalidTraceException(this.traceId, span.spanId(), PARENT,
							"the span is its own ancestor (parents form a cycle)");
				}
				span = (span.parentId() != null) ? this.spans.get(span.parentId()) : null;
			}
			walk.forEach((id) -> done.put(id, Boolean.TRUE));
		}
	}

	public String traceId() {
		return this.traceId;
	}

	/** The trace's spans, in the order they were read. */
	public Collection<Span> spans() {
		return this.spans.values();
	}

	/** The span's children, by start. */
	public List<Span> children(Span span) {
		return this.children.getOrDefault(span.spanId(), List.of());
	}

	/** The span's parent, or null for a root. */
	public Span parent(Span span) {
		return (span.parentId() != null) ? this.spans.get(span.parentId()) : null;
	}

}
