package io.pathfence.demo.run;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Istio variant fences orders exactly as the local envoy mode does: the WasmPlugin's
 * pluginConfig is the filter configuration the envoy mode loads (per-worker queues, match
 * kinds and all), so the two cannot drift.
 */
class IstioPluginConfigTests {

	@Test
	@SuppressWarnings("unchecked")
	void wasmPluginForOrdersHasTheEnvoyModesFilterConfiguration() throws Exception {
		Map<String, Object> plugin;
		try (InputStream in = Files.newInputStream(Path.of("deploy/istio/wasmplugin-orders.yaml"))) {
			plugin = new Yaml().load(in);
		}
		Map<String, Object> envoyMode;
		// JSON is YAML, so one parser reads both.
		try (InputStream in = getClass().getResourceAsStream("/envoy/orders-filter.json")) {
			envoyMode = new Yaml().load(in);
		}

		Map<String, Object> spec = (Map<String, Object>) plugin.get("spec");
		assertThat(spec.get("pluginConfig")).isEqualTo(envoyMode);
	}

}
