package io.pathfence.benchmarks.app;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The three routes the benchmark spreads its load over. They call nothing and do no work:
 * the request's cost is Tomcat's, Spring MVC's and, when it is on, the starter's.
 */
@RestController
class Routes {

	@GetMapping("/orders/{id}")
	String order() {
		return "order";
	}

	@GetMapping("/catalog/{id}")
	String catalogItem() {
		return "item";
	}

	@GetMapping("/local/{id}")
	String local() {
		return "local";
	}

}
