package io.pathfence.benchmarks.app;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.util.ServletRequestPathUtils;

import io.pathfence.autoconfigure.PathFenceWebAutoConfiguration;
import io.pathfence.web.RequestClassifier;

/**
 * Filters that do part of what the starter's filter does, to see where its cost goes
 * ({@code bench.floor}): {@code noop} passes every request on and is the floor of any
 * filter; {@code classify} also decides each request's path with the starter's own
 * {@link RequestClassifier} and stops there (no permit, no meters); {@code lookup} finds
 * the handler's route pattern with Spring MVC's own handler lookup, the work any
 * classification by the route the dispatcher will choose must do once more before the
 * dispatcher does it. All sit where the starter's filter sits in the chain, with the same
 * dispatcher types.
 */
@Configuration(proxyBeanMethods = false)
class FloorFilters {

	/** Where the request's path is left, so that the classification is not dead code. */
	static final String PATH_ATTRIBUTE = FloorFilters.class.getName() + ".path";

	/** With the starter's auto-configuration excluded: one filter that does nothing. */
	@Bean
	@ConditionalOnProperty(name = "bench.floor", havingValue = "noop")
	FilterRegistrationBean<Filter> noopFilterRegistration() {
		return registration("noopFilter", (request, response, chain) -> chain.doFilter(request, response));
	}

	/**
	 * With the starter's auto-configuration excluded: one filter that asks the request
	 * mappings for the request's handler, as the dispatcher will, and keeps its pattern.
	 */
	@Bean
	@ConditionalOnProperty(name = "bench.floor", havingValue = "lookup")
	FilterRegistrationBean<Filter> lookupFilterRegistration(
			@Qualifier("requestMappingHandlerMapping") RequestMappingHandlerMapping mapping) {
		return registration("lookupFilter", (request, response, chain) -> {
			HttpServletRequest http = (HttpServletRequest) request;
			boolean parsedHere = !ServletRequestPathUtils.hasParsedRequestPath(http);
			if (parsedHere) {
				ServletRequestPathUtils.parseAndCache(http);
			}
			try {
				mapping.getHandler(http);
				request.setAttribute(PATH_ATTRIBUTE,
						request.getAttribute(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE));
			}
			catch (Exception ex) {
				throw new ServletException(ex);
			}
			finally {
				if (parsedHere) {
					ServletRequestPathUtils.clearParsedRequestPath(http);
				}
			}
			chain.doFilter(request, response);
		});
	}

	/**
	 * In place of the starter's filter (same bean name, which makes its
	 * auto-configuration back off), with the classifier the auto-configuration builds
	 * from the properties.
	 */
	@Bean(name = "pathFenceFilterRegistration")
	@ConditionalOnProperty(name = "bench.floor", havingValue = "classify")
	FilterRegistrationBean<Filter> classifyOnlyFilterRegistration(RequestClassifier classifier) {
		return registration("classifyOnlyFilter", (request, response, chain) -> {
			request.setAttribute(PATH_ATTRIBUTE, classifier.classify((HttpServletRequest) request));
			chain.doFilter(request, response);
		});
	}

	private static FilterRegistrationBean<Filter> registration(String name, Filter filter) {
		FilterRegistrationBean<Filter> registration = new FilterRegistrationBean<>(filter);
		registration.setName(name);
		registration.setAsyncSupported(true);
		registration.setDispatcherTypes(DispatcherType.REQUEST, DispatcherType.ASYNC);
		registration.setOrder(PathFenceWebAutoConfiguration.FILTER_ORDER);
		return registration;
	}

}
