package io.pathfence.benchmarks.app;

import java.util.Arrays;
import java.util.stream.Collectors;

import jakarta.servlet.ServletContext;

import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.stereotype.Component;

/**
 * Tells the benchmark, in one line on standard output, that the service is ready, on
 * which port, and what is on its request path: the servlet filters registered and how
 * many of PathFence's beans exist. The benchmark checks it, so that a variant meant to
 * run without the starter cannot carry it by mistake, nor the other way round.
 */
@Component
class ReadyReport implements ApplicationListener<ApplicationReadyEvent> {

	static final String PREFIX = "bench-app ready";

	private final ServletContext servletContext;

	ReadyReport(ServletContext servletContext) {
		this.servletContext = servletContext;
	}

	@Override
	public void onApplicationEvent(ApplicationReadyEvent event) {
		ConfigurableApplicationContext context = event.getApplicationContext();
		int port = ((WebServerApplicationContext) context).getWebServer().getPort();
		long fenceBeans = Arrays.stream(context.getBeanDefinitionNames())
			.map(context::getType)
			.filter((type) -> type != null && isPathFence(type.getName()))
			.count();
		String filters = this.servletContext.getFilterRegistrations()
			.keySet()
			.stream()
			.sorted()
			.collect(Collectors.joining(","));
		System.out.println(PREFIX + " port=" + port + " pathfence-beans=" + fenceBeans + " filters=" + filters);
		System.out.flush();
	}

	private static boolean isPathFence(String className) {
		return className.startsWith("io.pathfence.") && !className.startsWith("io.pathfence.benchmarks.");
	}

}
