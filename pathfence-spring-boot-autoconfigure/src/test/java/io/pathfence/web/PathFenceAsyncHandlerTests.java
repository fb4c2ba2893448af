package io.pathfence.web;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import io.pathfence.core.PathFence;
import io.pathfence.task.PathFenceTaskExecutor;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Spring MVC async handler whose task waits in its path's queue, on a real Tomcat: a
 * queue timeout is answered at once, as the filter answers its own.
 */
class PathFenceAsyncHandlerTests {

	private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private final CountDownLatch gate = new CountDownLatch(1);

	private ConfigurableApplicationContext service;

	private String base;

	@BeforeEach
	void start() {
		this.service = new SpringApplicationBuilder(AsyncApplication.class)
			.properties("server.port=0", "server.address=127.0.0.1", "spring.main.banner-mode=off",
					"pathfence.pool-size=1", "pathfence.local.queue-timeout=50ms", "pathfence.exempt-routes=/exempt/**",
					"pathfence.retry-after=2s", "logging.level.root=warn")
			.run();
		this.base = "http://127.0.0.1:" + this.service.getEnvironment().getProperty("local.server.port");
	}

	@AfterEach
	void stop() {
		this.gate.countDown();
		this.service.close();
	}

	@Test
	void callableWhoseTaskTimesOutInItsQueueIsAnsweredAtOnceWithProblemDetails() throws Exception {
		PathFenceTaskExecutor executor = this.service.getBean(PathFenceTaskExecutor.class);
		PathFence fence = this.service.getBean(PathFence.class);
		executor.submit(PathFence.LOCAL, () -> this.gate.await(10, TimeUnit.SECONDS));
		Awaitility.await()
			.atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(fence.figures(PathFence.LOCAL).active()).isEqualTo(1));

		long started = System.nanoTime();
		HttpResponse<String> answer = this.client
			.send(HttpRequest.newBuilder(URI.create(this.base + "/exempt/callable"))
				.timeout(Duration.ofSeconds(10))
				.build(), HttpResponse.BodyHandlers.ofString());
		long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

		assertThat(answer.statusCode()).isEqualTo(503);
		assertThat(tookMillis).as("answer to a 50 ms queue timeout").isLessThan(2000);
		assertThat(answer.headers().firstValue("Retry-After")).hasValue("2");
		assertThat(answer.headers().firstValue("X-PathFence-Path")).hasValue(PathFence.LOCAL);
		assertThat(answer.headers().firstValue("Content-Type"))
			.hasValueSatisfying((type) -> assertThat(type).startsWith("application/problem+json"));
		assertThat(answer.body()).contains("\"status\":503", "\"reason\":\"timeout\"",
				"\"instance\":\"/exempt/callable\"");
		assertThat(AsyncApplication.Handlers.calls).as("the handler's callable never ran").isZero();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(AsyncApplication.Handlers.class)
	static class AsyncApplication {

		@RestController
		static class Handlers {

			static volatile int calls;

			@GetMapping("/exempt/callable")
			Callable<String> callable() {
				return () -> {
					calls++;
					return "ran";
				};
			}

		}

	}

}
