package io.pathfence.actuate;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.function.ToIntFunction;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

import io.pathfence.core.PathFence;
import io.pathfence.core.PathFenceListener;
import io.pathfence.core.PathFigures;
import io.pathfence.sct.Verdict;
import io.pathfence.tuning.PathTuner;
import io.pathfence.tuning.TuningDecision;

/**
 * Gauges of each reservation, tagged {@code path}: {@code pathfence.path.permits},
 * {@code .active}, {@code .queued} and {@code .borrowed} (for a path, its permits lent to
 * local tasks; for {@code local}, the permits its tasks borrowed). With tuning on, also
 * {@code pathfence.tuning.q.lower}, {@code .q.upper} and {@code .recommended} of each
 * path's latest decision, and the counter {@code pathfence.tuning.decisions} tagged
 * {@code verdict} ({@code plateau}, {@code explore}, {@code no-plateau},
 * {@code insufficient-data}). The counter reads the tuner's own counts when scraped, so
 * deciding costs one atomic increment and no meter lookup.
 * <p>
 * As a {@link PathFenceListener} it hears of paths added at run time and gives them the
 * same gauges in every registry it was bound to.
 */
public class PathFenceMeterBinder implements MeterBinder, PathFenceListener {

	private final PathFence fence;

	private final PathTuner tuner;

	/**
	 * @param fence the reservations
	 * @param tuner the online tuner, or {@code null} when tuning is off
	 */
	public PathFenceMeterBinder(PathFence fence, PathTuner tuner) {
		this.fence = fence;
		this.tuner = tuner;
	}

	/** The registries bound so far; guarded by {@code this}. */
	private final List<MeterRegistry> registries = new ArrayList<>();

	@Override
	public synchronized void bindTo(MeterRegistry registry) {
		this.registries.add(registry);
		for (String path : this.fence.pathNames()) {
			bindTo(registry, path, this.tuner != null && this.tuner.tunes(path));
		}
	}

	@Override
	public synchronized void onPathAdded(String path, int permits) {
		// The tuner may hear of the path after this binder does.
		boolean tuned = this.tuner != null && this.tuner.tunesAddedPaths();
		for (MeterRegistry registry : this.registries) {
			bindTo(registry, path, tuned);
		}
	}

	/** A removed path's meters go, so that no gauge reads a path the fence lost. */
	@Override
	public synchronized void onPathRemoved(String path, int permits) {
		for (MeterRegistry registry : this.registries) {
			registry.getMeters()
				.stream()
				.filter((meter) -> isBound(meter) && path.equals(meter.getId().getTag("path")))
				.toList()
				.forEach(registry::remove);
		}
	}

	private static boolean isBound(Meter meter) {
		String name = meter.getId().getName();
		return name.startsWith("pathfence.path.") && meter instanceof Gauge || name.startsWith("pathfence.tuning.");
	}

	private void bindTo(MeterRegistry registry, String path, boolean tuned) {
		gauge(registry, "pathfence.path.permits", path, PathFigures::permits, "Permits of the path's reservation");
		gauge(registry, "pathfence.path.active", path, PathFigures::active, "Tasks of the path running now");
		gauge(registry, "pathfence.path.queued", path, PathFigures::queued, "Tasks of the path waiting for a permit");
		gauge(registry, "pathfence.path.borrowed", path, PathFigures::borrowed,
				"Permits lent to local tasks (for local: permits its tasks borrowed)");
		if (tuned) {
			tuningGauge(registry, "pathfence.tuning.q.lower", path, TuningDecision::qLower,
					"Lower end of the path's rational concurrency range in the latest window");
			tuningGauge(registry, "pathfence.tuning.q.upper", path, TuningDecision::qUpper,
					"Upper end of the path's rational concurrency range in the latest window");
			tuningGauge(registry, "pathfence.tuning.recommended", path, TuningDecision::recommended,
					"Reservation SCT recommended for the path in the latest window");
			for (Verdict verdict : Verdict.values()) {
				FunctionCounter
					.builder("pathfence.tuning.decisions", this.tuner, (tuner) -> tuner.decisionCount(path, verdict))
					.tag("path", path)
					.tag("verdict", verdict.name().toLowerCase(Locale.ROOT).replace('_', '-'))
					.description("Tuning decisions on the path, by what SCT concluded from the window")
					.register(registry);
			}
		}
	}

	private void tuningGauge(MeterRegistry registry, String name, String path, Function<TuningDecision, Integer> figure,
			String description) {
		Gauge
			.builder(name, this.tuner,
					(tuner) -> tuner.decision(path).map(figure).map(Integer::doubleValue).orElse(Double.NaN))
			.tag("path", path)
			.description(description)
			.strongReference(true)
			.register(registry);
	}

	private void gauge(MeterRegistry registry, String name, String path, ToIntFunction<PathFigures> figure,
			String description) {
		Gauge
			.builder(name, this.fence,
					(fence) -> fence.hasPath(path) ? figure.applyAsInt(fence.figures(path)) : Double.NaN)
			.tag("path", path)
			.description(description)
			.strongReference(true)
			.register(registry);
	}

}
