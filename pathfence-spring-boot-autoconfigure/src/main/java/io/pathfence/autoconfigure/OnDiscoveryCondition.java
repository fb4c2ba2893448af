package io.pathfence.autoconfigure;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when {@code pathfence.discovery.mode} is other than {@code off}. The property
 * is bound as the properties bean binds it, so a value it refuses fails here with the
 * same message.
 */
class OnDiscoveryCondition extends SpringBootCondition {

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		PathFenceProperties.DiscoveryMode mode = Binder.get(context.getEnvironment())
			.bind("pathfence.discovery.mode", PathFenceProperties.DiscoveryMode.class)
			.orElse(PathFenceProperties.DiscoveryMode.OFF);
		return (mode != PathFenceProperties.DiscoveryMode.OFF)
				? ConditionOutcome.match("pathfence.discovery.mode is " + mode)
				: ConditionOutcome.noMatch("pathfence.discovery.mode is off");
	}

}
