package io.pathfence.web;

import java.lang.reflect.Method;
import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

import io.pathfence.annotation.FencedPath;
import io.pathfence.autoconfigure.InvalidPathFenceConfigurationException;
import io.pathfence.core.PathFence;

/**
 * Finds the Spring MVC handlers that name their path with {@link FencedPath}.
 */
public final class FencedHandlers {

	private FencedHandlers() {
	}

	/** Request mappings whose handler method or controller carries {@code @FencedPath}, with its path. */
	public static Map<RequestMappingInfo, String> find(ObjectProvider<RequestMappingHandlerMapping> mappings) {
		Map<RequestMappingInfo, String> found = new LinkedHashMap<>();
		mappings.orderedStream().forEach((mapping) -> mapping.getHandlerMethods().forEach((info, handler) -> {
			FencedPath annotation = annotationOf(handler);
			if (annotation != null) {
				found.put(info, annotation.value());
			}
		}));
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
