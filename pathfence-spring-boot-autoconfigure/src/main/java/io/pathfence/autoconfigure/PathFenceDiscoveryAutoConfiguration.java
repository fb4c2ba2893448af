package io.pathfence.autoconfigure;

import io.micrometer.context.ContextSnapshotFactory;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.task.TaskDecorator;
import org.springframework.core.task.support.ContextPropagatingTaskDecorator;
import org.springframework.http.server.observation.ServerRequestObservationContext;

import io.pathfence.core.PathFence;
import io.pathfence.learning.DiscoveryObservationHandler;
import io.pathfence.learning.LearnedPaths;

/**
 * Learns each route's path from the downstream calls Spring's observations see, when
 * {@code pathfence.discovery.mode} is {@code observe} or {@code enforce}. The handler
 * joins the {@link ObservationRegistry} as every {@code ObservationHandler} bean does; a
 * context-propagating task decorator, unless the application has a decorator of its own,
 * lets calls made from {@code @Async} and path-fenced tasks count for their request.
 */
@AutoConfiguration(after = { PathFenceAutoConfiguration.class, TaskExecutionAutoConfiguration.class })
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({ ObservationRegistry.class, ServerRequestObservationContext.class })
@ConditionalOnBean(PathFence.class)
@Conditional(OnDiscoveryCondition.class)
public final class PathFenceDiscoveryAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	LearnedPaths pathFenceLearnedPaths(PathFence fence, PathFenceProperties properties) {
		PathFenceProperties.Discovery discovery = properties.getDiscovery();
		LearnedPaths.Settings settings = new LearnedPaths.Settings(discovery.getMaxPaths(), discovery.getMaxRoutes(),
				discovery.getMaxDownstreamsPerRoute(), discovery.getConfirmations(), discovery.getPermits(),
				discovery.getMaxQueue(), discovery.getQueueTimeout(), properties.getTuning().getLocalFloor(),
				discovery.getRetireAfter());
		return new LearnedPaths(fence, discovery.getMode() == PathFenceProperties.DiscoveryMode.ENFORCE, settings);
	}

	@Bean
	@ConditionalOnMissingBean
	DiscoveryObservationHandler pathFenceDiscoveryObservationHandler(LearnedPaths learned) {
		return new DiscoveryObservationHandler(learned);
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(ContextSnapshotFactory.class)
	static class ContextPropagationConfiguration {

		@Bean
		@ConditionalOnMissingBean(TaskDecorator.class)
		ContextPropagatingTaskDecorator pathFenceContextPropagatingTaskDecorator() {
			return new ContextPropagatingTaskDecorator();
		}

	}

}
