package io.pathfence.autoconfigure;

import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;

/**
 * Matches when tuning is on for configured paths, or for paths learned in enforce mode
 * ({@code pathfence.discovery.tuning}, on by default).
 */
class OnTuningCondition extends AnyNestedCondition {

	OnTuningCondition() {
		super(ConfigurationPhase.REGISTER_BEAN);
	}

	@ConditionalOnBooleanProperty("pathfence.tuning.enabled")
	static class ConfiguredPaths {

	}

	@ConditionalOnProperty(name = "pathfence.discovery.mode", havingValue = "enforce")
	@ConditionalOnBooleanProperty(name = "pathfence.discovery.tuning", matchIfMissing = true)
	static class LearnedPaths {

	}

}
