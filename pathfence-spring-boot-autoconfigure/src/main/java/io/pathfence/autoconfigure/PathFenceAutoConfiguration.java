package io.pathfence.autoconfigure;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
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
import io.pathfence.core.PathFenceBuilder;
import io.pathfence.core.PathFenceListener;
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

	/** The fence; closing it with the context ends its timer and any wait left. */
	@Bean
	@ConditionalOnMissingBean
	PathFence pathFence(PathFenceProperties properties, ObjectProvider<PathFenceCustomizer> customizers) {
		PathFenceBuilder builder = PathFenceFactory.builder(properties);
		customizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
		return builder.build();
	}

	/**
	 * Registers every {@link PathFenceListener} bean (meters, the tuner, the
	 * application's) with the fence once all beans exist, before the server takes
	 * requests: a listener may need the fence itself, as the tuner does.
	 */
	@Bean
	static SmartInitializingSingleton pathFenceListenerRegistration(ObjectProvider<PathFence> fence,
			ObjectProvider<PathFenceListener> listeners) {
		return () -> fence.ifAvailable((built) -> listeners.orderedStream().forEach(built::addListener));
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static FencedPathAdvisingPostProcessor fencedPathAdvisingPostProcessor(ObjectProvider<PathFence> fence) {
		return new FencedPathAdvisingPostProcessor(fence::getObject);
	}

}
