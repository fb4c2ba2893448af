package io.pathfence.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.core.task.TaskDecorator;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.AsyncAnnotationBeanPostProcessor;
import org.springframework.scheduling.annotation.EnableAsync;

import io.pathfence.annotation.FencedPath;
import io.pathfence.core.PathFence;
import io.pathfence.task.CurrentPath;
import io.pathfence.task.PathFenceTaskExecutor;

import static org.assertj.core.api.Assertions.assertThat;

class PathFenceAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(PathFenceAutoConfiguration.class, TaskExecutionAutoConfiguration.class))
		.withPropertyValues("pathfence.pool-size=20", "pathfence.paths.payment.permits=4",
				"pathfence.paths.shipping.permits=6");

	@Test
	void whenEnabledThenApplicationTaskExecutorIsFencedByPath() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(PathFence.class);
			assertThat(context.getBean(TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME))
				.isInstanceOf(PathFenceTaskExecutor.class);
			assertThat(context.getBean(AsyncAnnotationBeanPostProcessor.DEFAULT_TASK_EXECUTOR_BEAN_NAME))
				.isSameAs(context.getBean(TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME));
			PathFence fence = context.getBean(PathFence.class);
			assertThat(fence.pathNames()).containsExactly("payment", "shipping", PathFence.LOCAL);
			assertThat(fence.figures(PathFence.LOCAL).permits()).isEqualTo(10);
		});
	}

	@Test
	void whenDisabledThenBootsOwnExecutorIsUsed() {
		this.contextRunner.withPropertyValues("pathfence.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean(PathFence.class);
			assertThat(context.getBean(TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME))
				.isNotInstanceOf(PathFenceTaskExecutor.class);
		});
	}

	@Test
	void whenUserDefinesExecutorThenExecutorBacksOffButFenceStays() {
		this.contextRunner.withUserConfiguration(UserExecutorConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(PathFence.class);
			assertThat(context).doesNotHaveBean(PathFenceTaskExecutor.class);
			assertThat(context).hasSingleBean(Executor.class);
		});
	}

	@Test
	void whenPermitsExceedThePoolThenStartupFailsNamingTheProperty() {
		this.contextRunner.withPropertyValues("pathfence.paths.shipping.permits=17").run((context) -> {
			FailureAnalysis analysis = analyze(context);
			assertThat(analysis.getDescription()).contains("pathfence.paths.*.permits").contains("21");
			assertThat(analysis.getAction()).contains("at most pathfence.pool-size (20)");
		});
	}

	@Test
	void whenPermitsAreNegativeThenStartupFailsNamingTheProperty() {
		this.contextRunner.withPropertyValues("pathfence.paths.payment.permits=-1").run((context) -> {
			FailureAnalysis analysis = analyze(context);
			assertThat(analysis.getDescription()).contains("pathfence.paths.payment.permits").contains("-1");
			assertThat(analysis.getAction()).contains("a whole number of 0 or more");
		});
	}

	@Test
	void whenLocalPermitsDoNotFitThenStartupFailsNamingTheProperty() {
		this.contextRunner.withPropertyValues("pathfence.local.permits=11").run((context) -> {
			FailureAnalysis analysis = analyze(context);
			assertThat(analysis.getDescription()).contains("pathfence.local.permits");
			assertThat(analysis.getAction()).contains("(10)");
		});
	}

	@Test
	void whenPoolSizeIsZeroThenStartupFailsNamingTheProperty() {
		this.contextRunner.withPropertyValues("pathfence.pool-size=0").run((context) -> {
			assertThat(analyze(context).getDescription()).contains("pathfence.pool-size");
		});
	}

	@Test
	void whenPathIsNamedLocalThenStartupFails() {
		this.contextRunner.withPropertyValues("pathfence.paths.local.permits=1").run((context) -> {
			assertThat(analyze(context).getAction()).contains("other than 'local'");
		});
	}

	@Test
	void whenAsyncMethodNamesUnknownPathThenStartupFailsNamingTheAnnotation() {
		this.contextRunner.withUserConfiguration(UnknownPathConfiguration.class).run((context) -> {
			FailureAnalysis analysis = analyze(context);
			assertThat(analysis.getDescription()).contains("@FencedPath on").contains("inventory");
			assertThat(analysis.getAction()).contains("payment");
		});
	}

	@Test
	void asyncMethodRunsOnItsPathsReservation() {
		this.contextRunner.withUserConfiguration(AsyncConfiguration.class).run((context) -> {
			PaymentClient client = context.getBean(PaymentClient.class);
			String path = client.charge().get(5, TimeUnit.SECONDS);
			assertThat(path).isEqualTo("payment");
			assertThat(client.unfenced().get(5, TimeUnit.SECONDS)).isEqualTo(PathFence.LOCAL);
			assertThat(client.threads()).isNotEmpty().allMatch((name) -> name.startsWith("pathfence-"));
		});
	}

	@Test
	void customizersAdjustTheFenceInTheirOrderAndFencedPathMayNameWhatTheyAdd() {
		this.contextRunner.withUserConfiguration(CustomizedFenceConfiguration.class).run((context) -> {
			PathFence fence = context.getBean(PathFence.class);
			assertThat(fence.pathNames()).containsExactly("payment", "shipping", "audit", "reports", PathFence.LOCAL);
			assertThat(fence.figures("reports").permits()).isEqualTo(2);
			assertThat(fence.figures(PathFence.LOCAL).permits()).isEqualTo(7);
			assertThat(context.getBean(ReportsClient.class).render().get(5, TimeUnit.SECONDS)).isEqualTo("reports");
		});
	}

	@Test
	void explicitSubmitRunsOnTheNamedPath() {
		this.contextRunner.run((context) -> {
			PathFenceTaskExecutor executor = context.getBean(PathFenceTaskExecutor.class);
			assertThat(executor.submit("shipping", CurrentPath::get).get(5, TimeUnit.SECONDS)).isEqualTo("shipping");
		});
	}

	@Test
	void taskDecoratorCapturesContextOnTheSubmittingThread() {
		this.contextRunner.withUserConfiguration(DecoratorConfiguration.class).run((context) -> {
			PathFenceTaskExecutor executor = context.getBean(PathFenceTaskExecutor.class);
			DecoratorConfiguration.CONTEXT.set("request-42");
			try {
				String seen = executor.submit("payment", DecoratorConfiguration.CONTEXT::get).get(5, TimeUnit.SECONDS);
				assertThat(seen).isEqualTo("request-42");
			}
			finally {
				DecoratorConfiguration.CONTEXT.remove();
			}
		});
	}

	@Test
	void mdcPropagatesThroughContextPropagatingTaskDecorator() {
		io.micrometer.context.ContextRegistry.getInstance()
			.registerThreadLocalAccessor(new io.micrometer.context.integration.Slf4jThreadLocalAccessor());
		this.contextRunner.withBean(org.springframework.core.task.support.ContextPropagatingTaskDecorator.class)
			.run((context) -> {
				PathFenceTaskExecutor executor = context.getBean(PathFenceTaskExecutor.class);
				org.slf4j.MDC.put("traceId", "4bf92f3577b34da6");
				try {
					String seen = executor.submit("payment", () -> org.slf4j.MDC.get("traceId"))
						.get(5, TimeUnit.SECONDS);
					assertThat(seen).isEqualTo("4bf92f3577b34da6");
				}
				finally {
					org.slf4j.MDC.remove("traceId");
				}
			});
	}

	@Test
	void currentObservationPropagatesThroughContextPropagatingTaskDecorator() {
		io.micrometer.observation.ObservationRegistry observations = io.micrometer.observation.ObservationRegistry
			.create();
		observations.observationConfig().observationHandler((observationContext) -> true);
		io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor.getInstance()
			.setObservationRegistry(observations);
		this.contextRunner.withBean(org.springframework.core.task.support.ContextPropagatingTaskDecorator.class)
			.run((context) -> {
				PathFenceTaskExecutor executor = context.getBean(PathFenceTaskExecutor.class);
				io.micrometer.observation.Observation order = io.micrometer.observation.Observation.start("place-order",
						observations);
				try (io.micrometer.observation.Observation.Scope scope = order.openScope()) {
					Object seen = executor.submit("payment", observations::getCurrentObservation)
						.get(5, TimeUnit.SECONDS);
					assertThat(seen).isSameAs(order);
				}
				finally {
					order.stop();
				}
			});
	}

	@Test
	void workersTakeBootsExecutorCustomizersButKeepTheFencesSizesAndNoDecoratorOfTheirOwn() {
		this.contextRunner
			.withBean(org.springframework.boot.task.ThreadPoolTaskExecutorCustomizer.class, () -> (workers) -> {
				workers.setKeepAliveSeconds(7);
				// A customizer written for Boot's own executor must not shrink the
				// fence's workers.
				workers.setCorePoolSize(3);
				workers.setMaxPoolSize(3);
			})
			.withBean(TaskDecorator.class, () -> (task) -> task)
			.run((context) -> {
				PathFenceTaskExecutor executor = context.getBean(PathFenceTaskExecutor.class);
				org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor workers = (org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor) executor
					.getWorkers();
				assertThat(workers.getKeepAliveSeconds()).isEqualTo(7);
				assertThat(workers.getCorePoolSize()).isEqualTo(20);
				assertThat(workers.getMaxPoolSize()).isEqualTo(20);
				assertThat(workers.getThreadNamePrefix()).isEqualTo("pathfence-");
				assertThat(workers.getThreadPoolExecutor().getQueue().remainingCapacity()).isEqualTo(Integer.MAX_VALUE);
			});
	}

	@Test
	@EnabledForJreRange(min = JRE.JAVA_21)
	void withVirtualThreadsTasksRunOnVirtualThreadsWithinTheirPermits() {
		this.contextRunner.withPropertyValues("spring.threads.virtual.enabled=true").run((context) -> {
			PathFenceTaskExecutor executor = context.getBean(PathFenceTaskExecutor.class);
			// Compiled for Java 17, so Thread.isVirtual() is looked up rather than
			// called.
			Object virtual = executor
				.submit("payment", () -> Thread.class.getMethod("isVirtual").invoke(Thread.currentThread()))
				.get(5, TimeUnit.SECONDS);
			assertThat(virtual).isEqualTo(Boolean.TRUE);
		});
	}

	private static FailureAnalysis analyze(AssertableApplicationContext context) {
		return ReportedFailureAnalysis.of(context);
	}

	@Configuration(proxyBeanMethods = false)
	static class UserExecutorConfiguration {

		@Bean
		Executor userExecutor() {
			return Executors.newSingleThreadExecutor();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAsync
	static class AsyncConfiguration {

		@Bean
		PaymentClient paymentClient() {
			return new PaymentClient();
		}

	}

	static class PaymentClient {

		private final List<String> threads = new CopyOnWriteArrayList<>();

		public List<String> threads() {
			return this.threads;
		}

		@Async
		@FencedPath("payment")
		public CompletableFuture<String> charge() {
			this.threads.add(Thread.currentThread().getName());
			return CompletableFuture.completedFuture(CurrentPath.get());
		}

		@Async
		public CompletableFuture<String> unfenced() {
			this.threads.add(Thread.currentThread().getName());
			return CompletableFuture.completedFuture(CurrentPath.get());
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAsync
	static class CustomizedFenceConfiguration {

		@Bean
		@Order(2)
		PathFenceCustomizer reportsPath() {
			return (builder) -> builder.path("reports", 2, 5, Duration.ofMillis(100));
		}

		@Bean
		@Order(1)
		PathFenceCustomizer auditPath() {
			return (builder) -> builder.path("audit", 1, 5, Duration.ofMillis(100));
		}

		@Bean
		ReportsClient reportsClient() {
			return new ReportsClient();
		}

	}

	static class ReportsClient {

		@Async
		@FencedPath("reports")
		public CompletableFuture<String> render() {
			return CompletableFuture.completedFuture(CurrentPath.get());
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAsync
	static class UnknownPathConfiguration {

		@Bean
		InventoryClient inventoryClient() {
			return new InventoryClient();
		}

	}

	static class InventoryClient {

		@Async
		@FencedPath("inventory")
		public void reserve() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class DecoratorConfiguration {

		static final ThreadLocal<String> CONTEXT = new ThreadLocal<>();

		@Bean
		TaskDecorator contextCopyingDecorator() {
			return (task) -> {
				String captured = CONTEXT.get();
				return () -> {
					CONTEXT.set(captured);
					try {
						task.run();
					}
					finally {
						CONTEXT.remove();
					}
				};
			};
		}

	}

}
