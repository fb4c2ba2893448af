package io.pathfence.autoconfigure;

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
 * PathFence's meters, when Micrometer has a registry. The metrics listener meters the
 * fence's paths and, like every {@code PathFenceListener} bean, joins the fence once all
 * beans exist.
 */
@AutoConfiguration(before = PathFenceAutoConfiguration.class,
		after = { MetricsAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
				SimpleMetricsExportAutoConfiguration.class })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = "pathfence.enabled", matchIfMissing = true)
public final class PathFenceMetricsAutoConfiguration {

	@Bean
	PathFenceMetricsListener pathFenceMetricsListener(MeterRegistry registry, PathFence fence) {
		// The fence's paths: those a PathFenceCustomizer added are metered too.
		return new PathFenceMetricsListener(registry, fence.pathNames());
	}

	@Bean
	PathFenceMeterBinder pathFenceMeterBinder(PathFence fence, ObjectProvider<PathTuner> tuner) {
		return new PathFenceMeterBinder(fence, tuner.getIfAvailable());
	}

}
