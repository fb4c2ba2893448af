package io.pathfence.testcontainers;

import org.junit.jupiter.api.Test;
import org.testcontainers.utility.DockerImageName;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/** The generated bootstrap and the container's own checks; no Docker needed. */
class EnvoyBootstrapTests {

	@Test
	void whenFilterIsSetThenItsConfigurationIsPassedAsOneJsonString() {
		String json = new EnvoyBootstrap(10000, 9901, "orders", 8080)
			.withFilter("/etc/pathfence/pathfence.wasm", "orders-vm", "{\"paths\": [\n]}")
			.toJson();

		assertThat(json).contains("\"value\": \"{\\\"paths\\\": [\\n]}\"")
			.contains("\"vm_id\": \"orders-vm\"")
			.contains("\"address\": \"orders\", \"port_value\": 8080")
			.containsSubsequence("envoy.filters.http.wasm", "envoy.filters.http.router");
	}

	@Test
	void whenFilterIsNotSetThenOnlyTheRouterRuns() {
		assertThat(new EnvoyBootstrap(10000, 9901, "orders", 8080).toJson()).doesNotContain("wasm")
			.contains("envoy.filters.http.router");
	}

	@Test
	void whenNoListenAddressIsGivenThenEnvoyListensOnEveryInterface() {
		assertThat(new EnvoyBootstrap(10000, 9901, "orders", 8080).toJson())
			.contains("\"address\": \"0.0.0.0\", \"port_value\": 9901")
			.contains("\"address\": \"0.0.0.0\", \"port_value\": 10000");
	}

	@Test
	void whenAListenAddressIsGivenThenTheListenerAndTheAdminInterfaceBindOnlyThere() {
		String json = new EnvoyBootstrap(10000, 9901, "127.0.0.1", 8080).withListenAddress("127.0.0.1")
			.withFilter("/tmp/pathfence.wasm", "shared", "{}")
			.toJson();

		assertThat(json).doesNotContain("0.0.0.0")
			.contains("\"address\": \"127.0.0.1\", \"port_value\": 9901")
			.contains("\"address\": \"127.0.0.1\", \"port_value\": 10000")
			.contains("\"vm_id\": \"shared\"");
	}

	@Test
	void whenControlCharactersAreQuotedThenTheyAreEscaped() {
		assertThat(EnvoyBootstrap.quote("a\"b\\c\u0001")).isEqualTo("\"a\\\"b\\\\c\\u0001\"");
	}

	@Test
	void whenNoTargetIsGivenThenStartingIsRefusedWithTheReason() {
		try (PathFenceContainer envoy = new PathFenceContainer("envoyproxy/envoy:v1.40.0").withPathFenceConfig("{}")) {
			assertThatIllegalStateException().isThrownBy(envoy::configure).withMessageContaining("withTarget");
		}
	}

	@Test
	void whenNoConfigurationIsGivenThenStartingIsRefusedUnlessTheFilterIsLeftOut() {
		try (PathFenceContainer envoy = new PathFenceContainer("envoyproxy/envoy:v1.40.0").withTarget("orders", 80)) {
			assertThatIllegalStateException().isThrownBy(envoy::configure).withMessageContaining("withoutFilter()");
		}
	}

	@Test
	void whenDefaultImageIsUsedThenItIsTheOfficialEnvoyOfTheTestedRelease() {
		DockerImageName image = PathFenceContainer.DEFAULT_IMAGE_NAME.withTag(PathFenceContainer.DEFAULT_TAG);

		assertThat(image.asCanonicalNameString()).isEqualTo("envoyproxy/envoy:v1.40.0");
		try (PathFenceContainer envoy = new PathFenceContainer(image)) {
			assertThat(envoy.getExposedPorts()).containsExactly(PathFenceContainer.PROXY_PORT,
					PathFenceContainer.ADMIN_PORT);
		}
	}

	@Test
	void whenImageIsNotEnvoyThenTheContainerRefusesIt() {
		assertThatIllegalStateException().isThrownBy(() -> new PathFenceContainer("nginx:1.27"));
	}

	@Test
	void whenTargetPortIsOutOfRangeThenItIsRefused() {
		try (PathFenceContainer envoy = new PathFenceContainer("envoyproxy/envoy:v1.40.0")) {
			assertThatIllegalArgumentException().isThrownBy(() -> envoy.withTarget("orders", 0));
		}
	}

}
