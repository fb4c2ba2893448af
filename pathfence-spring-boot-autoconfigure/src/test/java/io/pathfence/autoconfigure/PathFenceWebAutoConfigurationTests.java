package io.pathfence.autoconfigure;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import io.pathfence.annotation.FencedPath;
import io.pathfence.web.PathFenceFilter;
import io.pathfence.web.RequestClassifier;

import static org.assertj.core.api.Assertions.assertThat;

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
	void whenRoutePatternIsMalformedThenStartupFailsNamingTheRoute() {
		this.contextRunner.withPropertyValues("pathfence.paths.payment.routes=/payments/{id").run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = new PathFenceFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("pathfence.paths.payment.routes[0]")
				.contains("/payments/{id");
		});
	}

	@Test
	void whenExemptRouteIsMalformedThenStartupFailsNamingIt() {
		this.contextRunner.withPropertyValues("pathfence.exempt-routes=/health/{x").run((context) -> {
			FailureAnalysis analysis = new PathFenceFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("pathfence.exempt-routes[0]");
		});
	}

	@Test
	void whenRouteDoesNotStartWithSlashThenStartupFails() {
		this.contextRunner.withPropertyValues("pathfence.paths.payment.routes=payments").run((context) -> {
			FailureAnalysis analysis = new PathFenceFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis.getAction()).contains("starting with '/'");
		});
	}

	@Test
	void whenMethodIsNotAnHttpMethodNameThenStartupFails() {
		this.contextRunner.withPropertyValues("pathfence.paths.payment.methods=post").run((context) -> {
			FailureAnalysis analysis = new PathFenceFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("pathfence.paths.payment.methods");
		});
	}

	@Test
	void whenHandlerNamesUnknownPathThenStartupFailsNamingTheHandler() {
		this.contextRunner.withUserConfiguration(UnknownPathController.class).run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = new PathFenceFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("@FencedPath on")
				.contains("Handlers#ship")
				.contains("shipping");
			assertThat(analysis.getAction()).contains("payment");
		});
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
