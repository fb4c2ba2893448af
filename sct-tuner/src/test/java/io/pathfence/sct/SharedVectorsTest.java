package io.pathfence.sct;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.pathfence.sct.internal.IntervalRecorder;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * Runs the language-neutral vectors in {@code src/test/resources/vectors} (written by
 * {@code generate.py}; the Envoy filter's Rust port reads the same files).
 */
class SharedVectorsTest {

	private static final ObjectMapper JSON = JsonMapper.builder().build();

	private static final double EXACT = 1e-9;

	static Stream<Path> analyzerVectors() throws IOException, URISyntaxException {
		return vectors("analyzer");
	}

	static Stream<Path> recorderVectors() throws IOException, URISyntaxException {
		return vectors("recorder");
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("analyzerVectors")
	void analyzerGivesTheExpectedRangeAndVerdict(Path file) {
		JsonNode vector = JSON.readTree(file);
		List<Sample> samples = new ArrayList<>();
		for (JsonNode s : vector.get("samples")) {
			samples.add(new Sample(0, 50_000_000L, s.get(0).asDouble(), s.get(1).asDouble(), s.get(2).asDouble(),
					s.get(3).asDouble()));
		}
		SctResult result = Sct.analyzer(config(vector.get("config"))).analyze(samples);

		JsonNode expected = vector.get("expected");
		assertThat(result.verdict()).as(result.reason()).isEqualTo(Verdict.valueOf(expected.get("verdict").asString()));
		assertOptionalInt(result.qLower().isPresent() ? result.qLower().getAsInt() : null, expected.get("q_lower"));
		assertOptionalInt(result.qUpper().isPresent() ? result.qUpper().getAsInt() : null, expected.get("q_upper"));
		assertOptionalInt(result.recommended().isPresent() ? result.recommended().getAsInt() : null,
				expected.get("recommended"));
		if (expected.get("plateau_throughput").isNull()) {
			assertThat(result.plateauThroughput()).isEmpty();
		}
		else {
			assertThat(result.plateauThroughput().getAsDouble())
				.isCloseTo(expected.get("plateau_throughput").asDouble(), within(EXACT));
		}
		assertThat(result.samples()).isEqualTo(samples.size());
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("recorderVectors")
	void recorderGivesTheExpectedSamples(Path file) {
		JsonNode vector = JSON.readTree(file);
		SctConfig config = SctConfig.builder()
			.interval(java.time.Duration.ofNanos(Math.round(vector.get("interval_ms").asDouble() * 1e6)))
			.build();
		Map<String, List<Sample>> actual;
		if (vector.has("records")) {
			List<RequestRecord> records = new ArrayList<>();
			for (JsonNode r : vector.get("records")) {
				records
					.add(new RequestRecord(r.get("path").asString(), Math.round(r.get("arrival_ms").asDouble() * 1e6),
							Math.round(r.get("departure_ms").asDouble() * 1e6)));
			}
			actual = Sct.samplesByPath(records, config);
		}
		else {
			actual = Map.of("online", replayEvents(vector, config));
		}

		JsonNode expected = vector.get("expected");
		assertThat(actual.keySet()).containsExactlyElementsOf(expected.propertyNames());
		for (Map.Entry<String, JsonNode> path : expected.properties()) {
			List<Sample> samples = actual.get(path.getKey());
			assertThat(samples).as(path.getKey()).hasSize(path.getValue().size());
			for (int i = 0; i < samples.size(); i++) {
				JsonNode e = path.getValue().get(i);
				Sample s = samples.get(i);
				String where = path.getKey() + " sample " + i;
				assertThat(s.startNanos()).as(where).isEqualTo(e.get("start_ns").asLong());
				assertThat(s.concurrency()).as(where).isCloseTo(e.get("concurrency").asDouble(), within(EXACT));
				assertThat(s.throughput()).as(where).isCloseTo(e.get("throughput").asDouble(), within(EXACT));
				assertThat(s.responseTimeMillis()).as(where)
					.isCloseTo(e.get("response_time_ms").asDouble(), within(EXACT));
				assertThat(s.waiting()).as(where).isCloseTo(e.get("waiting").asDouble(), within(EXACT));
			}
		}
	}

	private static List<Sample> replayEvents(JsonNode vector, SctConfig config) {
		IntervalRecorder recorder = new IntervalRecorder(config, () -> {
			throw new AssertionError("the vector gives every timestamp");
		}, vector.get("origin_ns").asLong(), SctMetrics.NONE);
		for (JsonNode e : vector.get("events")) {
			long t = e.get("t_ns").asLong();
			switch (e.get("kind").asString()) {
				case "arrive" -> recorder.arrived(t);
				case "depart" -> recorder.departed(e.get("arrival_ns").asLong(), t);
				case "wait_start" -> recorder.waitStarted(t);
				case "wait_end" -> recorder.waitEnded(t);
				default -> throw new IllegalArgumentException(e.toString());
			}
		}
		return recorder.drain(vector.get("drain_ns").asLong());
	}

	private static SctConfig config(JsonNode node) {
		SctConfig.Builder b = SctConfig.builder();
		for (Map.Entry<String, JsonNode> e : node.properties()) {
			JsonNode v = e.getValue();
			switch (e.getKey()) {
				case "level_width" -> b.levelWidth(v.asInt());
				case "min_samples_per_level" -> b.minSamplesPerLevel(v.asInt());
				case "min_levels" -> b.minLevels(v.asInt());
				case "tolerance" -> b.tolerance(v.asDouble());
				case "confidence_z" -> b.confidenceZ(v.asDouble());
				case "response_time_limit_ms" -> b.responseTimeLimitMillis(v.asDouble());
				case "waiting_threshold" -> b.waitingThreshold(v.asDouble());
				case "explore_fraction" -> b.exploreFraction(v.asDouble());
				case "explore_max_step" -> b.exploreMaxStep(v.asInt());
				default -> throw new IllegalArgumentException("unknown config key in vector: " + e.getKey());
			}
		}
		return b.build();
	}

	private static void assertOptionalInt(Integer actual, JsonNode expected) {
		if (expected.isNull()) {
			assertThat(actual).isNull();
		}
		else {
			assertThat(actual).isEqualTo(expected.asInt());
		}
	}

	private static Stream<Path> vectors(String kind) throws IOException, URISyntaxException {
		Path dir = Path.of(SharedVectorsTest.class.getResource("/vectors/" + kind).toURI());
		List<Path> files;
		try (Stream<Path> list = Files.list(dir)) {
			files = list.filter(p -> p.toString().endsWith(".json")).sorted().toList();
		}
		assertThat(files).as("vectors in " + dir).isNotEmpty();
		return files.stream();
	}

}
