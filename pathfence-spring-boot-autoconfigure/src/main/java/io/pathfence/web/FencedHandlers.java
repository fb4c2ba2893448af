package io.pathfence.web;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

import io.pathfence.annotation.FencedPath;
import io.pathfence.core.InvalidPathFenceConfigurationException;
import io.pathfence.core.PathFence;

/**
 * Finds the Spring MVC handlers that name their path with {@link FencedPath}.
 */
public final class FencedHandlers {

	/**
	 * The path of a handler without {@code @FencedPath}: its requests are classified by
	 * the routes.
	 */
	public static final String UNFENCED = "";

	private FencedHandlers() {
	}

	/**
	 * Every request mapping of each handler mapping, in the dispatcher's order, with the
	 * path its handler method or controller names with {@code @FencedPath}, or
	 * {@link #UNFENCED}. Unannotated handlers are kept too, so that a request is
	 * classified by the handler that will really serve it, not by any annotated one it
	 * matches.
	 */
	public static List<Map<RequestMappingInfo, String>> find(ObjectProvider<RequestMappingHandlerMapping> mappings) {
		List<Map<RequestMappingInfo, String>> found = new ArrayList<>();
		mappings.orderedStream().forEach((mapping) -> {
			Map<RequestMappingInfo, String> paths = new LinkedHashMap<>();
			mapping.getHandlerMethods().forEach((info, handler) -> {
				FencedPath annotation = annotationOf(handler);
				paths.put(info, (annotation != null) ? annotation.value() : UNFENCED);
			});
			found.add(Collections.unmodifiableMap(paths));
		});
		return found;
	}

	private static FencedPath annotationOf(HandlerMethod handler) {
		Method method = handler.getMethod();
		FencedPath annotation = AnnotatedElementUtils.findMergedAnnotation(method, FencedPath.class);
		return (annotation != null) ? annotation
				: AnnotatedElementUtils.findMergedAnnotation(handler.getBeanType(), FencedPath.class);
	}

	/** Fails startup when a handler names a path that is not configured. */
	public static final class Verifier implements SmartInitializingSingleton {

		private final PathFence fence;

		private final ObjectProvider<RequestMappingHandlerMapping> mappings;

		public Verifier(PathFence fence, ObjectProvider<RequestMappingHandlerMapping> mappings) {
			this.fence = fence;
			this.mappings = mappings;
		}

		@Override
		public void afterSingletonsInstantiated() {
			this.mappings.orderedStream().forEach((mapping) -> mapping.getHandlerMethods().forEach((info, handler) -> {
				FencedPath annotation = annotationOf(handler);
				if (annotation != null && !this.fence.hasPath(annotation.value())) {
					throw new InvalidPathFenceConfigurationException("@FencedPath on " + handler.getShortLogMessage(),
							annotation.value(), "the name of a configured path: one of " + this.fence.pathNames());
				}
			}));
		}

	}

}
