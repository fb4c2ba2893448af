package io.pathfence.learning;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.LongAdder;

import org.apache.commons.logging.Log;

/**
 * What discovery warned of, each warning logged once. Bounded: what clients send decides
 * some warnings (a route per made-up path, say), so past {@code capacity} distinct ones
 * further warnings are only counted.
 */
final class Warnings {

	private final int capacity;

	private final Log logger;

	/** Guarded by {@code this}. */
	private final Set<String> kept = new TreeSet<>();

	private final LongAdder dropped = new LongAdder();

	Warnings(int capacity, Log logger) {
		this.capacity = capacity;
		this.logger = logger;
	}

	void warn(String warning) {
		boolean added;
		synchronized (this) {
			added = this.kept.size() < this.capacity && this.kept.add(warning);
			if (!added && !this.kept.contains(warning)) {
				this.dropped.increment();
			}
		}
		if (added) {
			this.logger.warn(warning);
		}
	}

	synchronized List<String> kept() {
		return List.copyOf(this.kept);
	}

	/** Warnings beyond the capacity, not kept and not logged. */
	long dropped() {
		return this.dropped.sum();
	}

}
