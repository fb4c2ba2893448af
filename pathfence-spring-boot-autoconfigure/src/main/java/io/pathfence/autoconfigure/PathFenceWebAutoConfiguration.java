package io.pathfence.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;

import jakarta.servlet.DispatcherType;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.servlet.config.annotation.AsyncSupportConfigurer;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

import io.pathfence.core.PathFence;
import io.pathfence.learning.LearnedPaths;
import io.pathfence.task.FencedPathAdvisingPostProcessor;
import io.pathfence.web.FencedHandlers;
import io.pathfence.web.PathFenceCallableInterceptor;
import io.pathfence.web.PathFenceFilter;
import io.pathfence.web.PathRejectedExceptionResolver;
import io.pathfence.web.RejectionRoute;
import io.pathfence.web.RequestClassifier;

/**
 * Fences inbound Spring MVC requests: classifies each by {@code @FencedPath} on its
 * handler, by the configured routes or by the paths discovery learned, and admits it
 * through its path's reservation.
 */
@AutoConfiguration(after = PathFenceAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(DispatcherServlet.class)
@ConditionalOnBean(PathFence.class)
public final class PathFenceWebAutoConfiguration {

	/**
	 * Last, after every other filter (the registration also asks to be matched after the
	 * others, which settles ties with filters left at the lowest precedence, the default
	 * of a {@code @Component} filter). A request that waits for its permit is suspended
	 * in this filter and comes back through the chain as an {@code ASYNC} dispatch, which
	 * filters registered for {@code REQUEST} only never see and a
	 * {@code OncePerRequestFilter} skips: every filter must therefore have run on the
	 * request before it can be parked, as every filter has before Spring MVC suspends an
	 * async handler.
	 */
	public static final int FILTER_ORDER = Ordered.LOWEST_PRECEDENCE;

	@Bean
	@ConditionalOnMissingBean
	RequestClassifier pathFenceRequestClassifier(PathFenceProperties properties,
			ObjectProvider<RequestMappingHandlerMapping> handlerMappings, ObjectProvider<LearnedPaths> learned) {
		Map<String, RequestClassifier.PathRoutes> routes = new LinkedHashMap<>();
		properties.getPaths()
			.forEach((name, path) -> routes.put(name,
					new RequestClassifier.PathRoutes(path.getRoutes(), path.getMethods())));
		// Learned paths classify requests only in enforce mode; observing changes
		// nothing.
		LearnedPaths enforced = learned.getIfAvailable();
		return new RequestClassifier(properties.getExemptRoutes(), routes, () -> FencedHandlers.find(handlerMappings),
				(enforced != null && enforced.isEnforced()) ? enforced : null);
	}

	@Bean
	PathFenceStartupWarnings pathFenceStartupWarnings(PathFence fence, PathFenceProperties properties,
			Environment environment, ObjectProvider<FencedPathAdvisingPostProcessor> asyncPaths,
			ObjectProvider<RequestMappingHandlerMapping> handlerMappings) {
		return new PathFenceStartupWarnings(fence, properties, environment, asyncPaths, handlerMappings);
	}

	@Bean
	FencedHandlers.Verifier pathFenceHandlerVerifier(PathFence fence,
			ObjectProvider<RequestMappingHandlerMapping> handlerMappings) {
		return new FencedHandlers.Verifier(fence, handlerMappings);
	}

	@Bean
	@ConditionalOnMissingBean
	PathRejectedExceptionResolver pathRejectedExceptionResolver(PathFenceProperties properties) {
		return new PathRejectedExceptionResolver(properties.getRetryAfter());
	}

	@Bean
	WebMvcConfigurer pathFenceAsyncSupportConfigurer() {
		return new WebMvcConfigurer() {
			@Override
			public void configureAsyncSupport(AsyncSupportConfigurer configurer) {
				configurer.registerCallableInterceptors(new PathFenceCallableInterceptor());
			}
		};
	}

	@Bean
	@ConditionalOnMissingBean(name = "pathFenceFilterRegistration")
	FilterRegistrationBean<PathFenceFilter> pathFenceFilterRegistration(PathFence fence, RequestClassifier classifier,
			PathFenceProperties properties, ObjectProvider<HandlerMapping> handlerMappings) {
		RejectionRoute rejectionRoute = new RejectionRoute(() -> handlerMappings.orderedStream().toList());
		FilterRegistrationBean<PathFenceFilter> registration = new FilterRegistrationBean<>(
				new PathFenceFilter(fence, classifier, properties.getRetryAfter(), rejectionRoute));
		registration.setName("pathFenceFilter");
		registration.setAsyncSupported(true);
		registration.setDispatcherTypes(DispatcherType.REQUEST, DispatcherType.ASYNC);
		registration.setOrder(FILTER_ORDER);
		registration.setMatchAfter(true);
		return registration;
	}

}
