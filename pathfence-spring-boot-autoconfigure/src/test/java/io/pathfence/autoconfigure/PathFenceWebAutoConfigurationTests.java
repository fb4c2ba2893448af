package io.pathfence.autoconfigure;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import io.pathfence.annotation.FencedPath;
import io.pathfence.web.PathFenceFilter;
import io.pathfence.web.RequestClassifier;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(OutputCaptureExtension.class)
class PathFenceWebAutoConfigurationTests {

	private final WebApplicationContextRunner contextRunner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(PathFenceAutoConfiguration.class, PathFenceWebAutoConfiguration.class,
				WebMvcAutoConfiguration.class))
		.withPropertyValues("pathfence.pool-size=10", "pathfence.paths.payment.permits=4",
				"pathfence.paths.payment.routes=/payments/**");

	@Test
	void whenServletWebApplicationThenFilterIsRegisteredForRequestAndAsyncDispatches() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(RequestClassifier.class);
			FilterRegistrationBean<?> registration = context.getBean("pathFenceFilterRegistration",
					FilterRegistrationBean.class);
			assertThat(registration.getFilter()).isInstanceOf(PathFenceFilter.class);
			assertThat(registration.isAsyncSupported()).isTrue();
			assertThat(registration.getOrder()).isEqualTo(PathFenceWebAutoConfiguration.FILTER_ORDER);
		});
	}

	@Test
	void whenDisabledThenNoFilter() {
		this.contextRunner.withPropertyValues("pathfence.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean("pathFenceFilterRegistration"));
	}

	@Test
	void whenThePoolOutnumbersTomcatsThreadsThenStartupWarns(CapturedOutput output) {
		this.contextRunner.withPropertyValues("server.tomcat.threads.max=8").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).contains("pathfence.pool-size (10) is above server.tomcat.threads.max (8)");
		});
	}

	@Test
	void whenThePoolFitsTomcatsThreadsThenNoWarning(CapturedOutput output) {
		this.contextRunner.withPropertyValues("server.tomcat.threads.max=10")
			.run((context) -> assertThat(output).doesNotContain("server.tomcat.threads.max ("));
	}

	@Test
	void whenNoRouteNorFencedPathReachesAPathThenStartupWarnsNamingIt(CapturedOutput output) {
		this.contextRunner
			.withPropertyValues("pathfence.paths.reports.permits=1", "pathfence.paths.shipping.permits=1",
					"pathfence.paths.audit.permits=1")
			.withUserConfiguration(ShippingController.class, AuditConfiguration.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output).contains("Path 'reports' has no route and no @FencedPath names it")
					.contains("pathfence.paths.reports.routes");
				// Reached by a route, by a handler's @FencedPath, by an @Async method's.
				assertThat(output).doesNotContain("Path 'payment' has no route")
					.doesNotContain("Path 'shipping' has no route")
					.doesNotContain("Path 'audit' has no route");
			});
	}

	@Test
	void whenAMethodIsNotAStandardHttpMethodThenStartupWarnsButStarts(CapturedOutput output) {
		this.contextRunner.withPropertyValues("pathfence.paths.payment.methods=POST,PROPFIND").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).contains("pathfence.paths.payment.methods lists 'PROPFIND'")
				.doesNotContain("lists 'POST'");
		});
	}

	@Test
	void whenRoutePatternIsMalformedThenStartupReportNamesTheRoute() {
		FailureAnalysis analysis = ReportedFailureAnalysis
			.ofStartup(() -> application("pathfence.paths.payment.routes=/payments/{id"));
		assertThat(analysis.getDescription()).contains("pathfence.paths.payment.routes[0]").contains("/payments/{id");
		assertThat(analysis.getAction()).contains("pathfence.paths.payment.routes[0]");
	}

	@Test
	void whenExemptRouteIsMalformedThenStartupReportNamesIt() {
		FailureAnalysis analysis = ReportedFailureAnalysis
			.ofStartup(() -> application("pathfence.exempt-routes=/health/{x"));
		assertThat(analysis.getDescription()).contains("pathfence.exempt-routes[0]").contains("/health/{x");
	}

	@Test
	void whenRouteDoesNotStartWithSlashThenStartupFails() {
		this.contextRunner.withPropertyValues("pathfence.paths.payment.routes=payments").run((context) -> {
			FailureAnalysis analysis = ReportedFailureAnalysis.of(context);
			assertThat(analysis.getAction()).contains("starting with '/'");
		});
	}

	@Test
	void whenMethodIsNotAnHttpMethodNameThenStartupFails() {
		this.contextRunner.withPropertyValues("pathfence.paths.payment.methods=post").run((context) -> {
			FailureAnalysis analysis = ReportedFailureAnalysis.of(context);
			assertThat(analysis.getDescription()).contains("pathfence.paths.payment.methods");
		});
	}

	@Test
	void whenHandlerNamesUnknownPathThenStartupFailsNamingTheHandler() {
		this.contextRunner.withUserConfiguration(UnknownPathController.class).run((context) -> {
			FailureAnalysis analysis = ReportedFailureAnalysis.of(context);
			assertThat(analysis.getDescription()).contains("@FencedPath on")
				.contains("Handlers#ship")
				.contains("shipping");
			assertThat(analysis.getAction()).contains("payment");
		});
	}

	/** A real service on Tomcat, started as a user starts it. */
	private static SpringApplicationBuilder application(String... properties) {
		return new SpringApplicationBuilder(RoutedApplication.class)
			.properties("server.port=0", "server.address=127.0.0.1", "spring.main.banner-mode=off",
					"pathfence.pool-size=10", "pathfence.paths.payment.permits=4")
			.properties(properties);
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class RoutedApplication {

	}

	@Configuration(proxyBeanMethods = false)
	static class ShippingController {

		@Bean
		ShippingHandlers shippingHandlers() {
			return new ShippingHandlers();
		}

	}

	@RestController
	static class ShippingHandlers {

		@GetMapping("/ship")
		@FencedPath("shipping")
		String ship() {
			return "shipped";
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAsync
	static class AuditConfiguration {

		@Bean
		AuditClient auditClient() {
			return new AuditClient();
		}

	}

	static class AuditClient {

		@Async
		@FencedPath("audit")
		public void record() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UnknownPathController {

		@Bean
		Handlers handlers() {
			return new Handlers();
		}

	}

	@RestController
	static class Handlers {

		@GetMapping("/ship")
		@FencedPath("shipping")
		String ship() {
			return "shipped";
		}

	}

}
