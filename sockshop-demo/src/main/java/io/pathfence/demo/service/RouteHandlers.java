package io.pathfence.demo.service;

import java.lang.reflect.Method;
import java.util.Locale;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.stereotype.Component;
import org.springframework.util.ReflectionUtils;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

import io.pathfence.demo.topology.Route;
import io.pathfence.demo.topology.Service;

/**
 * Gives each of the service's routes a handler mapping of its own, its method and path,
 * all served by {@link BlockingRoutes}. The catch-all {@code /**} alone would make every
 * request one route to Spring MVC, so that PathFence's discovery, which learns per
 * handler pattern and classifies by it, could not tell the routes apart.
 */
@Component
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
class RouteHandlers implements SmartInitializingSingleton {

	private final Service service;

	private final BlockingRoutes routes;

	private final RequestMappingHandlerMapping mapping;

	RouteHandlers(Service service, BlockingRoutes routes,
			@Qualifier("requestMappingHandlerMapping") RequestMappingHandlerMapping requestMappingHandlerMapping) {
		this.service = service;
		this.routes = routes;
		this.mapping = requestMappingHandlerMapping;
	}

	@Override
	public void afterSingletonsInstantiated() {
		Method serve = ReflectionUtils.findMethod(BlockingRoutes.class, "serve", HttpServletRequest.class);
		for (Route route : this.service.routes()) {
			RequestMappingInfo info = RequestMappingInfo.paths(route.path())
				.methods(RequestMethod.valueOf(route.method().toUpperCase(Locale.ROOT)))
				.options(this.mapping.getBuilderConfiguration())
				.build();
			this.mapping.registerMapping(info, this.routes, serve);
		}
	}

}
