package io.pathfence.discovery.trace;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The critical path of one request through its span tree, and how much of it each service
 * accounts for, by the per-request rules of the DeathStarBench critical-path study
 * (section 3.1).
 * <p>
 * A span's children are taken in order of start. The first is on the critical path; each
 * later one is compared with the last child on the path, s1 from t1 to t2, the new one s2
 * from t3 to t4:
 * <ul>
 * <li><em>mutually exclusive</em> ({@code t3 >= t2}): s2 joins the path, which grows by
 * {@code t4 - t3};</li>
 * <li><em>complete overlap</em> ({@code t4 <= t2}): s2 is not on the path;</li>
 * <li><em>partial overlap</em> ({@code t3 < t2 < t4}): s2 joins the path from where s1
 * ends, so the two cover {@code t4 - t1}.</li>
 * </ul>
 * The same rules apply within each child on the path, over the part of it that is on the
 * path (children are clipped to their parent's part). The time of a span on the path that
 * none of its children on the path covers is its own: it counts for the span's service,
 * or, for a call (a client span), for the callee, since the caller is waiting for it.
 * Each request's parts add up to its root span's duration.
 */
public final class CriticalPath {

	private final long totalNanos;

	private final Map<String, Long> byService;

	private final Map<String, Long> byDownstream;

	private CriticalPath(long totalNanos, Map<String, Long> byService, Map<String, Long> byDownstream) {
		this.totalNanos = totalNanos;
		this.byService = Collections.unmodifiableMap(byService);
		this.byDownstream = Collections.unmodifiableMap(byDownstream);
	}

	/**
	 * The critical path of the request whose root is {@code root}, a server span of
	 * {@code root.service()}.
	 */
	public static CriticalPath of(TraceTree tree, Span root) {
		Walk walk = new Walk(tree, root.service());
		walk.attribute(root, root.startNanos(), root.endNanos(), root.service());
		return new CriticalPath(root.durationNanos(), walk.byService, walk.byDownstream);
	}

	/** The request's duration: the length of its critical path. */
	public long totalNanos() {
		return this.totalNanos;
	}

	/** Time on the critical path by the service that spent it. */
	public Map<String, Long> byService() {
		return this.byService;
	}

	/**
	 * Time on the critical path by the root service's direct downstream it was spent
	 * under (with everything that downstream calls); the root service's own time is under
	 * its own name.
	 */
	public Map<String, Long> byDownstream() {
		return this.byDownstream;
	}

	private static final class Walk {

		final TraceTree tree;

		final String rootService;

		final Map<String, Long> byService = new TreeMap<>();

		final Map<String, Long> byDownstream = new TreeMap<>();

		Walk(TraceTree tree, String rootService) {
			this.tree = tree;
			this.rootService = rootService;
		}

		/**
		 * Splits {@code [from, to)} of {@code span} between its children on the critical
		 * path and its own time. {@code owner} is the root's direct downstream the span
		 * works under, or the root's service.
		 */
		void attribute(Span span, long from, long to, String owner) {
			List<Part> path = new ArrayList<>();
			long pathEnd = Long.MIN_VALUE;
			for (Span child : this.tree.children(span)) {
				long start = Math.max(child.startNanos(), from);
				long end = Math.min(child.endNanos(), to);
				if (end <= start || end <= pathEnd) {
					// Outside this part of the span, or a complete overlap.
					continue;
				}
				// Mutually exclusive: from its start; partial overlap: from where the
				// last ended.
				path.add(new Part(child, Math.max(start, pathEnd), end));
				pathEnd = end;
			}
			long own = to - from;
			for (Part part : path) {
				own -= part.end - part.start;
			}
			add(this.byService, span.kind().isOutbound() ? Callee.of(span, this.tree) : span.service(), own);
			add(this.byDownstream, owner, own);
			for (Part part : path) {
				attribute(part.span, part.start, part.end, ownerOf(part.span, owner));
			}
		}

		private String ownerOf(Span child, String owner) {
			if (!owner.equals(this.rootService)) {
				return owner;
			}
			String downstream = TraceLearning.downstreamOf(child, this.rootService, this.tree);
			return (downstream != null) ? downstream : owner;
		}

		private static void add(Map<String, Long> totals, String key, long nanos) {
			if (nanos > 0) {
				totals.merge(key, nanos, Long::sum);
			}
		}

	}

	private record Part(Span span, long start, long end) {
	}

}
