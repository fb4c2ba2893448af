package io.pathfence.autoconfigure;

import java.time.Clock;
import java.time.Duration;
import java.util.List;

import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

import io.pathfence.core.PathFence;
import io.pathfence.sct.SctConfig;
import io.pathfence.tuning.PathTuner;
import io.pathfence.tuning.ReservationStep;
import io.pathfence.tuning.TuningSchedule;

/**
 * Online tuning of the path reservations by the SCT model, when
 * {@code pathfence.tuning.enabled=true}, and of learned paths in discovery's enforce mode
 * unless {@code pathfence.discovery.tuning=false}.
 */
@Configuration(proxyBeanMethods = false)
@Conditional(OnTuningCondition.class)
class PathFenceTuningConfiguration {

	@Bean
	@ConditionalOnMissingBean
	PathTuner pathTuner(PathFenceProperties properties, PathFence fence) {
		PathFenceProperties.Tuning tuning = properties.getTuning();
		SctConfig config = SctConfig.builder().interval(tuning.getInterval()).window(tuning.getWindow()).build();
		int maxPermits = (tuning.getMaxPermits() != null) ? tuning.getMaxPermits() : properties.getPoolSize();
		ReservationStep step = new ReservationStep(tuning.getMinPermits(), maxPermits, tuning.getMaxStep(),
				tuning.getHysteresis());
		// As a listener bean, the tuner is registered with the fence once all beans
		// exist.
		List<String> paths = tuning.isEnabled()
				? fence.pathNames().stream().filter((path) -> !PathFence.LOCAL.equals(path)).toList() : List.of();
		PathFenceProperties.Discovery discovery = properties.getDiscovery();
		boolean tunesLearned = discovery.getMode() == PathFenceProperties.DiscoveryMode.ENFORCE && discovery.isTuning();
		return new PathTuner(fence, paths, tunesLearned, config, step, tuning.getLocalFloor(), System::nanoTime,
				Clock.systemUTC());
	}

	@Bean
	@ConditionalOnMissingBean
	TuningSchedule pathFenceTuningSchedule(PathTuner tuner, PathFenceProperties properties) {
		Duration period = properties.getTuning().getPeriod();
		return new TuningSchedule(tuner, (period != null) ? period : properties.getTuning().getWindow().dividedBy(4));
	}

}
