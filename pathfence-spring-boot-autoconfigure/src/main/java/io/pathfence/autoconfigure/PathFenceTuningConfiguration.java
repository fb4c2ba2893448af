package io.pathfence.autoconfigure;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.pathfence.core.PathFence;
import io.pathfence.sct.SctConfig;
import io.pathfence.tuning.PathTuner;
import io.pathfence.tuning.ReservationStep;
import io.pathfence.tuning.TuningSchedule;

/**
 * Online tuning of the path reservations by the SCT model, when
 * {@code pathfence.tuning.enabled=true}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty("pathfence.tuning.enabled")
class PathFenceTuningConfiguration {

	@Bean
	@ConditionalOnMissingBean
	PathTuner pathTuner(PathFenceProperties properties, ObjectProvider<PathFence> fence) {
		PathFenceProperties.Tuning tuning = properties.getTuning();
		SctConfig config = SctConfig.builder().interval(tuning.getInterval()).window(tuning.getWindow()).build();
		int maxPermits = (tuning.getMaxPermits() != null) ? tuning.getMaxPermits() : properties.getPoolSize();
		ReservationStep step = new ReservationStep(tuning.getMinPermits(), maxPermits, tuning.getMaxStep(),
				tuning.getHysteresis());
		// The fence is built with this tuner as one of its listeners, so it is looked up
		// only when deciding.
		return new PathTuner(fence::getObject, new ArrayList<>(properties.getPaths().keySet()), config, step,
				tuning.getLocalFloor(), System::nanoTime, Clock.systemUTC());
	}

	@Bean
	@ConditionalOnMissingBean
	TuningSchedule pathFenceTuningSchedule(PathTuner tuner, PathFenceProperties properties) {
		Duration period = properties.getTuning().getPeriod();
		return new TuningSchedule(tuner, (period != null) ? period : properties.getTuning().getWindow().dividedBy(4));
	}

}
