package io.pathfence.autoconfigure;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

import io.pathfence.actuate.PathFenceEndpoint;
import io.pathfence.core.PathFence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

@ExtendWith(OutputCaptureExtension.class)
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

	@Test
	void overHttpTheEndpointIsReadOnlyByDefault() throws Exception {
		try (Service service = Service.start()) {
			assertThat(service.get("/actuator/pathfence/payment").statusCode()).isEqualTo(200);
			HttpResponse<String> resize = service.post("/actuator/pathfence/payment", "{\"permits\":0}");
			assertThat(resize.statusCode()).isNotEqualTo(200).isBetween(400, 499);
			assertThat(service.fence().figures("payment").permits()).isEqualTo(4);
		}
		// The control: with writes allowed, the same request resizes the path.
		try (Service service = Service.start("management.endpoint.pathfence.access=unrestricted")) {
			HttpResponse<String> resize = service.post("/actuator/pathfence/payment", "{\"permits\":0}");
			assertThat(resize.statusCode()).isEqualTo(200);
			assertThat(resize.body()).contains("\"permits\":0");
			assertThat(service.fence().figures("payment").permits()).isZero();
		}
	}

	@Test
	void overHttpARefusedResizeAnswers400WithTheReasonAndIsLogged(CapturedOutput output) throws Exception {
		try (Service service = Service.start("management.endpoint.pathfence.access=unrestricted")) {
			HttpResponse<String> resize = service.post("/actuator/pathfence/payment", "{\"permits\":50}");
			assertThat(resize.statusCode()).isEqualTo(400);
			assertThat(resize.body()).contains("\"path\":\"payment\"", "\"permits\":50", "more than the pool of 20");
			assertThat(output).contains("Refused to resize path 'payment' to 50 permits")
				.contains("more than the pool of 20");
			assertThat(service.fence().figures("payment").permits()).isEqualTo(4);
			service.post("/actuator/pathfence/payment", "{\"permits\":5}");
			assertThat(output).contains("Resized path 'payment' from 4 to 5 permits");
		}
	}

	@Test
	void overHttpAResizeOfAnUnknownPathAnswers404() throws Exception {
		try (Service service = Service.start("management.endpoint.pathfence.access=unrestricted")) {
			HttpResponse<String> resize = service.post("/actuator/pathfence/nope", "{\"permits\":1}");
			assertThat(resize.statusCode()).isEqualTo(404);
			assertThat(resize.body()).contains("No path 'nope'");
			assertThat(service.get("/actuator/pathfence/nope").statusCode()).isEqualTo(404);
		}
	}

	/** A real service on Tomcat with the endpoint exposed over HTTP. */
	private record Service(ConfigurableApplicationContext context, HttpClient client,
			String base) implements AutoCloseable {

		static Service start(String... properties) {
			ConfigurableApplicationContext context = new SpringApplicationBuilder(EndpointApplication.class)
				.properties("server.port=0", "server.address=127.0.0.1", "spring.main.banner-mode=off",
						"management.endpoints.web.exposure.include=pathfence", "pathfence.pool-size=20",
						"pathfence.paths.payment.permits=4", "pathfence.paths.shipping.permits=6")
				.properties(properties)
				.run();
			String base = "http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port");
			return new Service(context, HttpClient.newHttpClient(), base);
		}

		PathFence fence() {
			return this.context.getBean(PathFence.class);
		}

		HttpResponse<String> get(String path) throws Exception {
			return send(HttpRequest.newBuilder(URI.create(this.base + path)).GET());
		}

		HttpResponse<String> post(String path, String json) throws Exception {
			return send(HttpRequest.newBuilder(URI.create(this.base + path))
				.header("Content-Type", "application/json")
				.POST(HttpRequest.BodyPublishers.ofString(json)));
		}

		private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
			return this.client.send(request.timeout(Duration.ofSeconds(10)).build(),
					HttpResponse.BodyHandlers.ofString());
		}

		@Override
		public void close() {
			this.context.close();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class EndpointApplication {

	}

}
