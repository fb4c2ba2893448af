package io.pathfence.autoconfigure;

import java.util.List;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.beans.factory.config.BeanDefinition;

import io.pathfence.core.PathFence;
import io.pathfence.core.PathFenceListener;
import io.pathfence.core.WaitTimer;
import io.pathfence.task.FencedPathAdvisingPostProcessor;

/**
 * Fences the service's worker threads by path: the {@link PathFence} reservations, the
 * path-aware {@code applicationTaskExecutor} (unless the application defines its own
 * executor) and the {@code @FencedPath} advice for {@code @Async} methods. Runs before
 * Boot's task execution auto-configuration so that its executor takes the place of
 * Boot's.
 */
@AutoConfiguration(before = TaskExecutionAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "pathfence.enabled", matchIfMissing = true)
@EnableConfigurationProperties(PathFenceProperties.class)
@Import({ PathFenceExecutorConfigurations.PlatformThreadsConfiguration.class,
		PathFenceExecutorConfigurations.VirtualThreadsConfiguration.class, PathFenceTuningConfiguration.class })
public final class PathFenceAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	PathFence pathFence(PathFenceProperties properties, ObjectProvider<PathFenceListener> listeners,
			ObjectProvider<PathFenceCustomizer> customizers) {
		List<PathFenceListener> all = listeners.orderedStream().toList();
		PathFence.Builder builder = PathFenceFactory.builder(properties).listener(CompositePathFenceListener.of(all));
		customizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
		return builder.build();
	}

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	WaitTimer pathFenceWaitTimer() {
		return new WaitTimer();
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static FencedPathAdvisingPostProcessor fencedPathAdvisingPostProcessor(ObjectProvider<PathFence> fence) {
		return new FencedPathAdvisingPostProcessor(fence::getObject);
	}

}
