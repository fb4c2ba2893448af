package io.pathfence.autoconfigure;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import org.springframework.http.HttpMethod;
import org.springframework.util.ClassUtils;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

import io.pathfence.core.PathFence;
import io.pathfence.task.FencedPathAdvisingPostProcessor;
import io.pathfence.web.FencedHandlers;

/**
 * Warns, once every singleton exists, about settings that start but likely do not do what
 * was meant: a pool larger than Tomcat's threads, a path no request can reach, and a
 * method Spring MVC does not know. None is refused: each has a legitimate use.
 */
final class PathFenceStartupWarnings implements SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(PathFenceStartupWarnings.class);

	/** Boot's default of {@code server.tomcat.threads.max}. */
	private static final int TOMCAT_DEFAULT_MAX_THREADS = 200;

	private static final Set<String> STANDARD_METHODS = Set
		.copyOf(Arrays.stream(HttpMethod.values()).map(HttpMethod::name).toList());

	private final PathFence fence;

	private final PathFenceProperties properties;

	private final Environment environment;

	private final ObjectProvider<FencedPathAdvisingPostProcessor> asyncPaths;

	private final ObjectProvider<RequestMappingHandlerMapping> handlerMappings;

	PathFenceStartupWarnings(PathFence fence, PathFenceProperties properties, Environment environment,
			ObjectProvider<FencedPathAdvisingPostProcessor> asyncPaths,
			ObjectProvider<RequestMappingHandlerMapping> handlerMappings) {
		this.fence = fence;
		this.properties = properties;
		this.environment = environment;
		this.asyncPaths = asyncPaths;
		this.handlerMappings = handlerMappings;
	}

	@Override
	public void afterSingletonsInstantiated() {
		warnIfThePoolOutnumbersTomcatsThreads();
		warnAboutPathsNoRequestReaches();
		warnAboutMethodsSpringMvcDoesNotKnow();
	}

	private void warnIfThePoolOutnumbersTomcatsThreads() {
		Binder binder = Binder.get(this.environment);
		boolean virtualThreads = binder.bind("spring.threads.virtual.enabled", Boolean.class).orElse(false);
		if (virtualThreads || !ClassUtils.isPresent("org.apache.catalina.startup.Tomcat", null)) {
			// On virtual threads Tomcat has no fixed number of threads to outgrow.
			return;
		}
		int tomcatThreads = binder.bind("server.tomcat.threads.max", Integer.class).orElse(TOMCAT_DEFAULT_MAX_THREADS);
		int poolSize = this.fence.poolSize();
		if (poolSize > tomcatThreads) {
			logger.warn("pathfence.pool-size (" + poolSize + ") is above server.tomcat.threads.max (" + tomcatThreads
					+ "): the reservations promise more requests at once than Tomcat has threads, so a path that"
					+ " fills its reservation can take the threads another path's reservation counts on, and"
					+ " requests then wait in Tomcat's queue, where paths are not kept apart. Keep"
					+ " pathfence.pool-size at or below server.tomcat.threads.max.");
		}
	}

	private void warnAboutPathsNoRequestReaches() {
		Set<String> reached = new HashSet<>();
		this.properties.getPaths().forEach((name, path) -> {
			if (!path.getRoutes().isEmpty()) {
				reached.add(name);
			}
		});
		this.asyncPaths.ifAvailable((postProcessor) -> reached.addAll(postProcessor.namedPaths()));
		for (Map<RequestMappingInfo, String> mapping : FencedHandlers.find(this.handlerMappings)) {
			reached.addAll(mapping.values());
		}
		List<String> unreached = this.fence.pathNames()
			.stream()
			.filter((name) -> !PathFence.LOCAL.equals(name) && !reached.contains(name))
			.toList();
		for (String name : unreached) {
			logger.warn("Path '" + name + "' has no route and no @FencedPath names it, so no request reaches it:"
					+ " only tasks submitted to it by name (PathFenceTaskExecutor.submit(\"" + name
					+ "\", task)) run on it. Set pathfence.paths." + name + ".routes or name it with @FencedPath(\""
					+ name + "\").");
		}
	}

	private void warnAboutMethodsSpringMvcDoesNotKnow() {
		this.properties.getPaths().forEach((name, path) -> {
			for (String method : path.getMethods()) {
				if (!STANDARD_METHODS.contains(method)) {
					logger.warn("pathfence.paths." + name + ".methods lists '" + method
							+ "', which is not a standard HTTP method " + STANDARD_METHODS.stream().sorted().toList()
							+ ": only requests of exactly that method match (a servlet or filter may serve such"
							+ " a method, a Spring MVC handler cannot). Check it is not a typo.");
				}
			}
		});
	}

}
