package io.pathfence.actuate;

import java.util.function.ToIntFunction;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

import io.pathfence.core.PathFence;
import io.pathfence.core.PathFigures;

/**
 * Gauges of each reservation, tagged {@code path}: {@code pathfence.path.permits}, {@code .active},
 * {@code .queued} and {@code .borrowed} (for a path, its permits lent to local tasks; for {@code local}, the
 * permits its tasks borrowed).
 */
public class PathFenceMeterBinder implements MeterBinder {

	private final PathFence fence;

	public PathFenceMeterBinder(PathFence fence) {
		this.fence = fence;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		for (String path : this.fence.pathNames()) {
			gauge(registry, "pathfence.path.permits", path, PathFigures::permits, "Permits of the path's reservation");
			gauge(registry, "pathfence.path.active", path, PathFigures::active, "Tasks of the path running now");
			gauge(registry, "pathfence.path.queued", path, PathFigures::queued, "Tasks of the path waiting for a permit");
			gauge(registry, "pathfence.path.borrowed", path, PathFigures::borrowed,
					"Permits lent to local tasks (for local: permits its tasks borrowed)");
		}
	}

	private void gauge(MeterRegistry registry, String name, String path, ToIntFunction<PathFigures> figure,
			String description) {
		Gauge.builder(name, this.fence, (fence) -> figure.applyAsInt(fence.figures(path)))
			.tag("path", path)
			.description(description)
			.strongReference(true)
			.register(registry);
	}

}
