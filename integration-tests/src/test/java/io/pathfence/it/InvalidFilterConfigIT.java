package io.pathfence.it;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import io.pathfence.testcontainers.DockerTestSupport;
import io.pathfence.testcontainers.PathFenceContainer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Scenario (d): Envoy refuses to start with an invalid filter configuration, and the test
 * sees the filter's own message naming the field. Each invalid configuration is
 * {@link #VALID} with one value broken, and the control starts {@link #VALID} itself with
 * the same container setup: it must start and proxy, so a refusal can only come from the
 * broken value.
 */
@ExtendWith(TopologyExtension.class)
class InvalidFilterConfigIT {

	/**
	 * The corrected version of every invalid configuration below: a regex, a limit and a
	 * pause that are all valid.
	 */
	private static final String VALID = """
			{"paths": [{"name": "a", "match": {"regex": "/a[0-9]*"}, "max_concurrency": 2}],
			 "pause": {"every_requests": 5, "duration_ms": 10, "paths": ["a"]}}""";

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', textBlock = """
			paths[0].match.regex     | "/a[0-9]*"             | "/a(["
			paths[0].max_concurrency | "max_concurrency": 2   | "max_concurrency": 0
			pause.paths[0]           | "paths": ["a"]         | "paths": ["nope"]
			""")
	void whenConfigurationIsInvalidThenEnvoyIsRefusedAndTheErrorNamesTheField(String field, String valid, String broken,
			Topology topology) {
		assertThat(VALID).as("the value this case breaks").containsOnlyOnce(valid);
		try (PathFenceContainer envoy = envoy(topology, VALID.replace(valid, broken))) {
			assertThatThrownBy(envoy::start).rootCause()
				.hasMessageContaining("invalid pathfence configuration: field `" + field + "`");
			assertThat(envoy.isRunning()).isFalse();
		}
	}

	@Test
	void whenTheBrokenValuesAreCorrectedThenEnvoyStartsAndProxies(Topology topology) throws Exception {
		try (PathFenceContainer envoy = envoy(topology, VALID)) {
			envoy.start();

			HttpResponse<String> answer = HttpClient.newHttpClient()
				.send(HttpRequest.newBuilder(URI.create(envoy.getProxyUrl() + "/a1"))
					.timeout(Duration.ofSeconds(10))
					.build(), HttpResponse.BodyHandlers.ofString());
			assertThat(answer.statusCode()).isEqualTo(200);
			assertThat(answer.body()).isEqualTo("done /a1");
			// Each worker reports its counts on a 2 ms tick, so the count may trail the
			// answer a little.
			long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
			while (envoy.getPathStat("a", "granted") != 1 && System.nanoTime() < deadline) {
				Thread.sleep(20);
			}
			assertThat(envoy.getPathStat("a", "granted")).as("the request went through the filter's path a")
				.isEqualTo(1);
		}
	}

	private static PathFenceContainer envoy(Topology topology, String config) {
		return new PathFenceContainer(DockerTestSupport.envoyImage()).withTarget(topology.user, 8080)
			.withPathFenceConfig(config);
	}

}
