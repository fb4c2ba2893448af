package io.pathfence.demo.service;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.pathfence.demo.topology.Service;
import io.pathfence.demo.topology.Topologies;

import static org.assertj.core.api.Assertions.assertThat;

class ServiceDefaultsTests {

	private final Service orders = Topologies.load("sock-shop").service("orders");

	@Test
	void sharedServiceThatLearnsItsPathsHasNoneConfigured() {
		Map<String, Object> properties = ServiceDefaults.of(this.orders, true);
		assertThat(properties.keySet()).noneMatch((key) -> key.startsWith("pathfence.paths."));
		assertThat(properties).containsKey("pathfence.pool-size");
	}

	@Test
	void sharedServiceOtherwiseHasTheTopologysPaths() {
		Map<String, Object> properties = ServiceDefaults.of(this.orders, false);
		assertThat(properties).containsEntry("pathfence.paths.order-history.routes", "/orders/history");
	}

}
