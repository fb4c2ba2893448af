package io.pathfence.web;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.task.AsyncTaskExecutor;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.context.request.async.CallableProcessingInterceptor;
import org.springframework.web.context.request.async.WebAsyncTask;
import org.springframework.web.servlet.AsyncHandlerInterceptor;
import org.springframework.web.servlet.config.annotation.AsyncSupportConfigurer;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

import io.pathfence.core.PathFence;
import io.pathfence.core.RejectionReason;
import io.pathfence.task.PathFenceTaskExecutor;
import io.pathfence.task.PathRejectedException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The mark that lets an async handler's task report its queue timeout belongs to the task
 * Spring MVC submits for that handler, on a real Tomcat: another interceptor that submits
 * to the fenced executor on the same thread, before or instead of Spring MVC, neither
 * takes it (which would run its task without a permit once it timed out) nor takes it
 * from the handler (whose client would then wait for the async request timeout).
 */
class PathFenceAsyncTimeoutMarkTests {

	private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private final CountDownLatch gate = new CountDownLatch(1);

	private ConfigurableApplicationContext service;

	@AfterEach
	void stop() {
		this.gate.countDown();
		if (this.service != null) {
			this.service.close();
		}
		Interceptors.reset();
	}

	@Test
	void aCallableInterceptorAfterPathFencesThatSubmitsATaskLeavesTheHandlersTimeoutReportToTheHandler()
			throws Exception {
		start(SubmittingCallableInterceptorApplication.class);
		long started = System.nanoTime();
		HttpResponse<String> answer = get("/exempt/callable");
		long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

		assertThat(Interceptors.submitted).as("the interceptor submitted its task").hasValueMatching((f) -> f != null);
		assertThat(answer.statusCode()).isEqualTo(503);
		assertThat(answer.body()).contains("\"reason\":\"timeout\"");
		assertThat(tookMillis).as("answer to the handler's 50 ms queue timeout, not the 8 s async timeout")
			.isLessThan(4000);
		assertInterceptorsTaskTimedOutWithoutRunning();
		assertThat(Handlers.calls).as("the handler's callable never ran").isZero();
	}

	@Test
	void aHandlerInterceptorThatSubmitsAfterAWebAsyncTaskOnItsOwnExecutorDoesNotTakeTheMark() throws Exception {
		start(SubmittingHandlerInterceptorApplication.class);
		HttpResponse<String> answer = get("/exempt/own-executor");

		assertThat(answer.statusCode()).as("the handler ran on its own executor").isEqualTo(200);
		assertThat(Interceptors.submitted).as("the interceptor submitted its task").hasValueMatching((f) -> f != null);
		assertInterceptorsTaskTimedOutWithoutRunning();
	}

	private void start(Class<?> application) {
		this.service = new SpringApplicationBuilder(application)
			.properties("server.port=0", "server.address=127.0.0.1", "spring.main.banner-mode=off",
					"pathfence.pool-size=1", "pathfence.local.queue-timeout=50ms", "pathfence.exempt-routes=/exempt/**",
					"spring.mvc.async.request-timeout=8s", "logging.level.root=warn")
			.run();
		PathFenceTaskExecutor executor = this.service.getBean(PathFenceTaskExecutor.class);
		PathFence fence = this.service.getBean(PathFence.class);
		// The pool's only permit is held, so every other task waits and times out.
		executor.submit(PathFence.LOCAL, () -> this.gate.await(20, TimeUnit.SECONDS));
		Awaitility.await()
			.atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(fence.figures(PathFence.LOCAL).active()).isEqualTo(1));
	}

	private HttpResponse<String> get(String path) throws Exception {
		String base = "http://127.0.0.1:" + this.service.getEnvironment().getProperty("local.server.port");
		return this.client.send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(15)).build(),
				HttpResponse.BodyHandlers.ofString());
	}

	/**
	 * The interceptor's own task timed out in its queue, as any task does, and its code
	 * never ran: a task that took the mark would have run past its timeout without a
	 * permit, beside the task that holds the pool's only one.
	 */
	private void assertInterceptorsTaskTimedOutWithoutRunning() throws Exception {
		Future<?> future = Interceptors.submitted.get();
		assertThatThrownBy(() -> future.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
			.cause()
			.isInstanceOfSatisfying(PathRejectedException.class,
					(rejected) -> assertThat(rejected.getReason()).isEqualTo(RejectionReason.TIMEOUT));
		Thread.sleep(200);
		assertThat(Interceptors.ran).as("runs of the interceptor's task, which never had a permit").hasValue(0);
	}

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

		@GetMapping("/exempt/own-executor")
		WebAsyncTask<String> ownExecutor() {
			return new WebAsyncTask<>(5000L, new SimpleAsyncTaskExecutor("own-"), () -> "ran");
		}

	}

	/** What the interceptors submitted to the fenced executor, and whether it ran. */
	static final class Interceptors {

		static final AtomicReference<Future<?>> submitted = new AtomicReference<>();

		static final AtomicInteger ran = new AtomicInteger();

		static void submit(AsyncTaskExecutor executor) {
			submitted.set(executor.submit(ran::incrementAndGet));
		}

		static void reset() {
			submitted.set(null);
			ran.set(0);
			Handlers.calls = 0;
		}

	}

	/**
	 * A {@code CallableProcessingInterceptor} that submits to the fenced executor before
	 * the handler's task is submitted, registered after PathFence's own, as a library's
	 * auto-configuration loaded after PathFence's would register it.
	 */
	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(Handlers.class)
	static class SubmittingCallableInterceptorApplication {

		@Bean
		static BeanDefinitionRegistryPostProcessor registersLateConfigurer() {
			return (BeanDefinitionRegistry registry) -> registry.registerBeanDefinition("lateConfigurer",
					new RootBeanDefinition(LateConfigurer.class));
		}

	}

	static class LateConfigurer implements WebMvcConfigurer {

		private final AsyncTaskExecutor executor;

		LateConfigurer(AsyncTaskExecutor applicationTaskExecutor) {
			this.executor = applicationTaskExecutor;
		}

		@Override
		public void configureAsyncSupport(AsyncSupportConfigurer configurer) {
			configurer.registerCallableInterceptors(new CallableProcessingInterceptor() {
				@Override
				public <T> void beforeConcurrentHandling(NativeWebRequest request, Callable<T> task) {
					Interceptors.submit(LateConfigurer.this.executor);
				}
			});
		}

	}

	/**
	 * An {@code AsyncHandlerInterceptor} that submits to the fenced executor once the
	 * handler went async, on the request's container thread; the handler's task runs on
	 * an executor of its own, so Spring MVC submits nothing to the fenced one.
	 */
	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(Handlers.class)
	static class SubmittingHandlerInterceptorApplication implements WebMvcConfigurer {

		private final AsyncTaskExecutor executor;

		SubmittingHandlerInterceptorApplication(AsyncTaskExecutor applicationTaskExecutor) {
			this.executor = applicationTaskExecutor;
		}

		@Override
		public void addInterceptors(InterceptorRegistry registry) {
			registry.addInterceptor(new AsyncHandlerInterceptor() {
				@Override
				public void afterConcurrentHandlingStarted(HttpServletRequest request, HttpServletResponse response,
						Object handler) {
					Interceptors.submit(SubmittingHandlerInterceptorApplication.this.executor);
				}
			});
		}

	}

}
