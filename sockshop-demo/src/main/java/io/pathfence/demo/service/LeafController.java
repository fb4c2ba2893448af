package io.pathfence.demo.service;

import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Carts, catalogue, user, payment and shipping: each answers any request on its own work
 * alone.
 */
@RestController
@ConditionalOnExpression("'${role:}' matches 'carts|catalogue|user|payment|shipping'")
class LeafController {

	private final SimulatedWork work;

	LeafController(SimulatedWork work) {
		this.work = work;
	}

	@RequestMapping("/**")
	String serve() {
		this.work.perform();
		return "{\"ok\":true}";
	}

}
