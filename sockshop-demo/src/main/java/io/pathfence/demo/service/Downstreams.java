package io.pathfence.demo.service;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiFunction;

import org.springframework.core.env.Environment;

import io.pathfence.demo.topology.Service;

/**
 * The base URL of each service this one calls: {@code downstream.NAME}, given by the
 * runner (or a Kubernetes manifest). A missing one fails start-up, naming the property.
 * The client is made from the downstream's name and its URL.
 */
final class Downstreams {

	private Downstreams() {
	}

	static <T> Map<String, T> of(Service service, Environment environment, BiFunction<String, String, T> client) {
		Map<String, T> clients = new LinkedHashMap<>();
		for (String name : service.downstreams()) {
			String url = environment.getProperty("downstream." + name);
			if (url == null || url.isBlank()) {
				throw new IllegalStateException(service.name() + " calls " + name
						+ ": give its base URL with --downstream." + name + "=http://HOST:PORT");
			}
			clients.put(name, client.apply(name, url));
		}
		return clients;
	}

}
