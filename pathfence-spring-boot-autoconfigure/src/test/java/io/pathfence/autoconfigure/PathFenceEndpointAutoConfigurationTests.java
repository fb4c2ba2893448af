package io.pathfence.autoconfigure;

import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.pathfence.actuate.PathFenceEndpoint;
import io.pathfence.core.PathFence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class PathFenceEndpointAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(PathFenceAutoConfiguration.class,
				PathFenceEndpointAutoConfiguration.class, TaskExecutionAutoConfiguration.class))
		.withPropertyValues("pathfence.pool-size=20", "pathfence.paths.payment.permits=4",
				"pathfence.paths.shipping.permits=6");

	@Test
	void endpointIsNotCreatedUnlessExposed() {
		this.contextRunner.run((context) -> assertThat(context).doesNotHaveBean(PathFenceEndpoint.class));
	}

	@Test
	void endpointReadsAndResizesPaths() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=pathfence").run((context) -> {
			PathFenceEndpoint endpoint = context.getBean(PathFenceEndpoint.class);
			assertThat(endpoint.fence().poolSize()).isEqualTo(20);
			assertThat(endpoint.fence().paths()).extracting("path").containsExactly("payment", "shipping", "local");
			assertThat(endpoint.resize("payment", 8).permits()).isEqualTo(8);
			assertThat(endpoint.path(PathFence.LOCAL).permits()).isEqualTo(6);
			assertThat(endpoint.path("nope")).isNull();
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.resize("payment", 50))
				.satisfies((ex) -> assertThat(ex.getReason()).contains("more than the pool of 20"));
			assertThat(endpoint.path("payment").permits()).isEqualTo(8);
		});
	}

}
