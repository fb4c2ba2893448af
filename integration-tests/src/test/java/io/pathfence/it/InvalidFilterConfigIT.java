package io.pathfence.it;

import io.pathfence.testcontainers.DockerTestSupport;
import io.pathfence.testcontainers.PathFenceContainer;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Scenario (d): Envoy refuses to start with an invalid filter configuration, and the test sees the filter's own
 * message naming the field. The control is the topology's Envoy, started with a valid configuration.
 */
@ExtendWith(TopologyExtension.class)
class InvalidFilterConfigIT {

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', textBlock = """
			paths[0].match.regex | {"paths": [{"name": "a", "match": {"regex": "/a(["}, "max_concurrency": 2}]}
			paths[0].max_concurrency | {"paths": [{"name": "a", "max_concurrency": 0}]}
			pause.paths[0] | {"paths": [], "pause": {"every_requests": 5, "duration_ms": 10, "paths": ["nope"]}}
			""")
	void whenConfigurationIsInvalidThenEnvoyIsRefusedAndTheErrorNamesTheField(String field, String config,
			Topology topology) {
		assertThat(topology.envoyFenced.isRunning()).as("control: a valid configuration starts").isTrue();
		try (PathFenceContainer envoy = new PathFenceContainer(DockerTestSupport.envoyImage())
			.withTarget(topology.user, 8080)
			.withPathFenceConfig(config)) {
			assertThatThrownBy(envoy::start).rootCause()
				.hasMessageContaining("invalid pathfence configuration: field `" + field + "`");
			assertThat(envoy.isRunning()).isFalse();
		}
	}

}
