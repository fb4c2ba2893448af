package io.pathfence.it.services;

import java.util.Arrays;

/**
 * One jar, every service of the scenarios; {@code --role=} picks which: {@code orders}
 * (the shared Spring Boot service, fenced by the starter unless
 * {@code --pathfence.enabled=false}) or {@code downstream} (a plain HTTP server that
 * answers after a delay: a stalling shipping, or a fast user service).
 */
public final class ServicesMain {

	private ServicesMain() {
	}

	public static void main(String[] args) throws Exception {
		String role = Arrays.stream(args)
			.filter((arg) -> arg.startsWith("--role="))
			.map((arg) -> arg.substring("--role=".length()))
			.findFirst()
			.orElseThrow(() -> new IllegalArgumentException("--role=orders or --role=downstream is required"));
		switch (role) {
			case "orders" -> OrdersApplication.main(args);
			case "downstream" -> Downstream.main(args);
			default -> throw new IllegalArgumentException("unknown role '" + role + "'");
		}
	}

}
