package io.pathfence.it.services;

import java.net.http.HttpClient;
import java.time.Duration;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * The shared service of the scenarios: {@code GET /orders} calls shipping,
 * {@code GET /user} calls the user service, each synchronously on its Tomcat thread, and
 * Tomcat has 8 threads (application.properties). A stall of shipping therefore holds
 * Tomcat threads, which is what a fence must contain.
 */
@SpringBootApplication
public class OrdersApplication {

	public static void main(String[] args) {
		SpringApplication.run(OrdersApplication.class, args);
	}

	@Bean
	HttpClient downstreamClient() {
		return HttpClient.newBuilder()
			.version(HttpClient.Version.HTTP_1_1)
			.connectTimeout(Duration.ofSeconds(2))
			.build();
	}

}
