package io.pathfence.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.context.annotation.Bean;

import io.pathfence.actuate.PathFenceMeterBinder;
import io.pathfence.actuate.PathFenceMetricsListener;
import io.pathfence.core.PathFence;
import io.pathfence.tuning.PathTuner;

/**
 * PathFence's meters, when Micrometer has a registry. Runs before the core
 * auto-configuration so the metrics listener is there when the fence is built.
 */
@AutoConfiguration(before = PathFenceAutoConfiguration.class,
		after = { MetricsAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
				SimpleMetricsExportAutoConfiguration.class })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = "pathfence.enabled", matchIfMissing = true)
public final class PathFenceMetricsAutoConfiguration {

	@Bean
	PathFenceMetricsListener pathFenceMetricsListener(MeterRegistry registry, PathFenceProperties properties) {
		List<String> paths = new ArrayList<>(properties.getPaths().keySet());
		paths.add(PathFence.LOCAL);
		return new PathFenceMetricsListener(registry, paths);
	}

	@Bean
	PathFenceMeterBinder pathFenceMeterBinder(PathFence fence, ObjectProvider<PathTuner> tuner) {
		return new PathFenceMeterBinder(fence, tuner.getIfAvailable());
	}

}
