package io.pathfence.autoconfigure;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import io.pathfence.actuate.PathFenceEndpoint;
import io.pathfence.actuate.PathFenceEndpointWebExtension;
import io.pathfence.core.PathFence;
import io.pathfence.learning.LearnedPaths;
import io.pathfence.tuning.PathTuner;

/**
 * The {@code pathfence} actuator endpoint, when the actuator is on the classpath and the
 * endpoint is available, with its web extension when it is exposed over HTTP.
 */
@AutoConfiguration(after = { PathFenceAutoConfiguration.class, PathFenceDiscoveryAutoConfiguration.class })
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean(PathFence.class)
@ConditionalOnAvailableEndpoint(PathFenceEndpoint.class)
public final class PathFenceEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	PathFenceEndpoint pathFenceEndpoint(PathFence fence, ObjectProvider<PathTuner> tuner,
			ObjectProvider<LearnedPaths> learned) {
		return new PathFenceEndpoint(fence, tuner.getIfAvailable(), learned.getIfAvailable());
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(PathFenceEndpoint.class)
	@ConditionalOnAvailableEndpoint(endpoint = PathFenceEndpoint.class, exposure = EndpointExposure.WEB)
	PathFenceEndpointWebExtension pathFenceEndpointWebExtension(PathFenceEndpoint endpoint) {
		return new PathFenceEndpointWebExtension(endpoint);
	}

}
