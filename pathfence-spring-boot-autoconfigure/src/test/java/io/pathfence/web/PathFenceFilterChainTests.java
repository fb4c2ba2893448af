package io.pathfence.web;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Component;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.filter.OncePerRequestFilter;

import io.pathfence.core.PathFence;
import io.pathfence.core.PathFigures;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The application's own filters, declared the plainest way (a {@code @Component} with no
 * order, a plain {@link Filter} and a {@link OncePerRequestFilter}), on a real Tomcat:
 * each runs for a request that had to wait for its permit exactly as for one granted at
 * once.
 */
class PathFenceFilterChainTests {

	/** Holds requests of path "gate" inside the handler until the test opens it. */
	static volatile CountDownLatch gate = new CountDownLatch(0);

	private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private ConfigurableApplicationContext service;

	private String base;

	@BeforeEach
	void start() {
		gate = new CountDownLatch(1);
		this.service = new SpringApplicationBuilder(FilteredApplication.class)
			.properties("server.port=0", "server.address=127.0.0.1", "spring.main.banner-mode=off",
					"pathfence.pool-size=8", "pathfence.paths.gate.permits=1", "pathfence.paths.gate.max-queue=4",
					"pathfence.paths.gate.queue-timeout=10s", "pathfence.paths.gate.routes=/gate/**",
					"logging.level.root=warn")
			.run();
		this.base = "http://127.0.0.1:" + this.service.getEnvironment().getProperty("local.server.port");
	}

	@AfterEach
	void stop() {
		gate.countDown();
		this.service.close();
	}

	@Test
	void plainFilterWithoutOrderTurnsAwayARequestWhosePathIsBusy() throws Exception {
		CompletableFuture<HttpResponse<String>> holder = get("/gate/1", "X-Key", "k");
		awaitFigures(1, 0);
		CompletableFuture<HttpResponse<String>> unauthorised = get("/gate/2");
		awaitAnsweredOrQueued(unauthorised);
		gate.countDown();
		assertThat(unauthorised.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(401);
		assertThat(holder.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
		awaitFigures(0, 0);
	}

	@Test
	void oncePerRequestFilterRunsForARequestThatWaitedForItsPermit() throws Exception {
		CompletableFuture<HttpResponse<String>> holder = get("/gate/1", "X-Key", "k", "X-Tenant", "first");
		awaitFigures(1, 0);
		CompletableFuture<HttpResponse<String>> queued = get("/gate/2", "X-Key", "k", "X-Tenant", "acme");
		awaitFigures(1, 1);
		gate.countDown();
		HttpResponse<String> answer = queued.get(10, TimeUnit.SECONDS);
		assertThat(answer.statusCode()).isEqualTo(200);
		assertThat(answer.body()).isEqualTo("tenant acme");
		assertThat(holder.get(10, TimeUnit.SECONDS).body()).isEqualTo("tenant first");
		awaitFigures(0, 0);
	}

	/**
	 * Waits until the request is either answered or waiting in the queue, whichever the
	 * filters make of it.
	 */
	private void awaitAnsweredOrQueued(CompletableFuture<?> request) {
		PathFence fence = this.service.getBean(PathFence.class);
		Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.until(() -> request.isDone() || fence.figures("gate").queued() == 1);
	}

	private void awaitFigures(int active, int queued) {
		PathFence fence = this.service.getBean(PathFence.class);
		Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			PathFigures figures = fence.figures("gate");
			assertThat(figures.active()).as("active").isEqualTo(active);
			assertThat(figures.queued()).as("queued").isEqualTo(queued);
		});
	}

	private CompletableFuture<HttpResponse<String>> get(String path, String... headers) {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(this.base + path))
			.timeout(Duration.ofSeconds(20));
		if (headers.length > 0) {
			request.headers(headers);
		}
		return this.client.sendAsync(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import({ FilteredApplication.KeyFilter.class, FilteredApplication.TenantFilter.class,
			FilteredApplication.Handlers.class })
	static class FilteredApplication {

		/** An authentication filter as users write one: no order, REQUEST dispatches. */
		@Component
		static class KeyFilter implements Filter {

			@Override
			public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
					throws IOException, ServletException {
				if (((HttpServletRequest) request).getHeader("X-Key") == null) {
					((HttpServletResponse) response).sendError(401);
					return;
				}
				chain.doFilter(request, response);
			}

		}

		/** A tenant filter as users write one: no order, once per request. */
		@Component
		static class TenantFilter extends OncePerRequestFilter {

			@Override
			protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
					throws ServletException, IOException {
				request.setAttribute("tenant", request.getHeader("X-Tenant"));
				chain.doFilter(request, response);
			}

		}

		@RestController
		static class Handlers {

			@GetMapping("/gate/{id}")
			String gate(HttpServletRequest request) throws InterruptedException {
				gate.await(10, TimeUnit.SECONDS);
				return "tenant " + request.getAttribute("tenant");
			}

		}

	}

}
