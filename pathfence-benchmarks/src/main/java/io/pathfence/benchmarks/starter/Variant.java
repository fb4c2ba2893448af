package io.pathfence.benchmarks.starter;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * One way of starting the same service jar. The baseline excludes every
 * auto-configuration of the starter, so that nothing of it is on the request path or even
 * loaded; the others add back the whole starter or a part of what its filter does, to see
 * where its cost goes.
 */
enum Variant {

	/**
	 * The starter's auto-configurations excluded: the service as if it had no starter.
	 */
	WITHOUT("without", "without the starter", false, null, excludeAll()),

	/**
	 * The baseline again, in its own process: against the baseline it shows the
	 * benchmark's resolution (an A/A comparison).
	 */
	WITHOUT_AGAIN("without-again", "without the starter, again (A/A)", false, null, excludeAll()),

	/** No starter, one filter that passes every request on, where the starter's sits. */
	NOOP("noop", "a filter that does nothing", false, "noopFilter", excludeAll(), "--bench.floor=noop"),

	/**
	 * No starter, one filter that finds the request's handler with Spring MVC's own
	 * lookup: the least a classification by the dispatcher's route (discovery's) adds.
	 */
	LOOKUP("lookup", "a filter that finds the handler's route", false, "lookupFilter", excludeAll(),
			"--bench.floor=lookup"),

	/** The starter, its filter replaced by one that only classifies the request. */
	CLASSIFY("classify", "classification only", true, "classifyOnlyFilter", "--bench.floor=classify"),

	/** The starter without its meters (no listener, so the fence reads no clock). */
	NO_METRICS("no-metrics", "the starter without its meters", true, "pathFenceFilter",
			"--spring.autoconfigure.exclude=io.pathfence.autoconfigure.PathFenceMetricsAutoConfiguration"),

	/** The starter as a service gets it. */
	STARTER("starter", "with the starter", true, "pathFenceFilter"),

	/**
	 * The starter, discovery off, its orders and catalog routes each calling a downstream
	 * answered in memory: the baseline of the discovery variants.
	 */
	CALLS("calls", "with the starter, routes calling downstreams", true, "pathFenceFilter", "--bench.calls=true"),

	/**
	 * The same with discovery off and the two paths discovery learns configured by hand
	 * (same routes, methods and permits): the baseline that has the fence on the learned
	 * paths' routes, so that enforce against it is the cost of learning and of learned
	 * classification only.
	 */
	CONFIGURED("configured", "the same, the learned paths configured by hand", true, "pathFenceFilter",
			"--bench.calls=true", "--spring.config.name=configured"),

	/** The same, discovery learning each route's downstreams and enforcing nothing. */
	OBSERVE("observe", "the same, discovery observing", true, "pathFenceFilter", "--bench.calls=true",
			"--pathfence.discovery.mode=observe"),

	/**
	 * The same without configured paths: discovery learns the two paths, adds their
	 * reservations and classifies requests by what it learned.
	 */
	ENFORCE("enforce", "the same, discovery enforcing learned paths", true, "pathFenceFilter", "--bench.calls=true",
			"--spring.config.name=discovery");

	/**
	 * Filters that only some variants have: each variant must have its own and no other.
	 */
	private static final List<String> VARIANT_FILTERS = List.of("pathFenceFilter", "noopFilter", "lookupFilter",
			"classifyOnlyFilter");

	final String id;

	final String label;

	/** Whether the starter's beans exist (its fence admits the requests). */
	final boolean fenced;

	/** The one filter of {@link #VARIANT_FILTERS} this variant has, or none. */
	private final String filter;

	final List<String> arguments;

	Variant(String id, String label, boolean fenced, String filter, String... arguments) {
		this.id = id;
		this.label = label;
		this.fenced = fenced;
		this.filter = filter;
		this.arguments = List.of(arguments);
	}

	private static String excludeAll() {
		return "--spring.autoconfigure.exclude=" + String.join(",", StarterAutoConfigurations.NAMES);
	}

	static Variant of(String id) {
		return Arrays.stream(values())
			.filter((v) -> v.id.equals(id))
			.findFirst()
			.orElseThrow(() -> new IllegalArgumentException("unknown variant '" + id + "'; known: "
					+ Arrays.stream(values()).map((v) -> v.id).collect(Collectors.joining(", "))));
	}

	/**
	 * The variant this one is compared with: the service without the starter, or, for
	 * discovery, the same service with discovery off.
	 */
	Variant baseline() {
		return (this == CONFIGURED || this == OBSERVE || this == ENFORCE) ? CALLS : WITHOUT;
	}

	/**
	 * Checks the service's own report of what is on its request path against what this
	 * variant should have.
	 * @param pathFenceBeans how many beans of PathFence's classes exist
	 * @param filters the servlet filters registered
	 */
	void verify(long pathFenceBeans, List<String> filters) {
		if (this.fenced != (pathFenceBeans > 0)) {
			throw new IllegalStateException(this.id + ": expected " + (this.fenced ? "PathFence's beans" : "none")
					+ ", found " + pathFenceBeans + " beans of PathFence");
		}
		for (String f : VARIANT_FILTERS) {
			if (f.equals(this.filter) != filters.contains(f)) {
				throw new IllegalStateException(this.id + ": filter " + f
						+ (filters.contains(f) ? " is present" : " is missing") + " in " + filters);
			}
		}
	}

	/**
	 * The starter's auto-configurations, as its imports file lists them (in a holder: an
	 * enum's constants are built before its other static fields).
	 */
	private static final class StarterAutoConfigurations {

		static final List<String> NAMES = List.of("io.pathfence.autoconfigure.PathFenceAutoConfiguration",
				"io.pathfence.autoconfigure.PathFenceWebAutoConfiguration",
				"io.pathfence.autoconfigure.PathFenceMetricsAutoConfiguration",
				"io.pathfence.autoconfigure.PathFenceEndpointAutoConfiguration");

	}

}
