package io.pathfence.benchmarks.app;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A service with two fenced paths ({@code orders}, {@code catalog}) and a local route,
 * each answering at once, so that what the starter adds to a request is as large a share
 * of it as it can be. Started by the starter benchmark with and without the starter's
 * auto-configuration.
 */
@SpringBootApplication
public class BenchApplication {

	public static void main(String[] args) {
		SpringApplication.run(BenchApplication.class, args);
	}

}
