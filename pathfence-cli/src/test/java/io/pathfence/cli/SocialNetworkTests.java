package io.pathfence.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The front end of a DeathStarBench-SocialNetwork-shaped application, learned from the
 * same generated traces written as Zipkin, Jaeger and OTLP JSON: the same routes, paths,
 * configuration and critical-path shares from each.
 */
class SocialNetworkTests {

	static final String EXPECTED_YAML = """
			# Every path starts with 10 permits (70 in all): they must fit in pathfence.pool-size.
			# Size them from the service's load, or let pathfence.tuning.enabled=true size them.
			pathfence:
			  paths:
			    compose-post_media_text_unique-id_user:
			      # calls compose-post+media+text+unique-id+user; 1 route, 3 requests
			      permits: 10
			      routes:
			        - "/wrk2-api/post/compose"
			      methods:
			        - POST
			    home-timeline:
			      # calls home-timeline; 1 route, 2 requests
			      permits: 10
			      routes:
			        - "/wrk2-api/home-timeline/read"
			      methods:
			        - GET
			    post-storage:
			      # calls post-storage; 1 route, 2 requests
			      permits: 10
			      routes:
			        - "/wrk2-api/post/{id}"
			      methods:
			        - GET
			    social-graph:
			      # calls social-graph; 1 route, 1 requests
			      permits: 10
			      routes:
			        - "/wrk2-api/user/{id}/followers"
			      methods:
			        - GET
			    social-graph_user:
			      # calls social-graph+user; 2 routes, 2 requests
			      permits: 10
			      routes:
			        - "/wrk2-api/user/follow"
			        - "/wrk2-api/user/unfollow"
			      methods:
			        - POST
			    user:
			      # calls user; 2 routes, 2 requests
			      permits: 10
			      routes:
			        - "/api/user/login"
			        - "/wrk2-api/user/register"
			      methods:
			        - GET
			        - POST
			    user-timeline:
			      # calls user-timeline; 1 route, 1 requests
			      permits: 10
			      routes:
			        - "/wrk2-api/user-timeline/read"
			      methods:
			        - GET
			# Local (they call no downstream): GET /index.html
			""";

	static final String EXPECTED_FILTER_JSON = """
			{
			  "paths": [
			    {"name": "compose-post_media_text_unique-id_user", "match": {"exact": "/wrk2-api/post/compose", "method": "POST"}, "max_concurrency": 10},
			    {"name": "home-timeline", "match": {"exact": "/wrk2-api/home-timeline/read", "method": "GET"}, "max_concurrency": 10},
			    {"name": "post-storage", "match": {"prefix": "/wrk2-api/post/", "method": "GET"}, "max_concurrency": 10},
			    {"name": "social-graph", "match": {"regex": "/wrk2-api/user/[^/]+/followers", "method": "GET"}, "max_concurrency": 10},
			    {"name": "social-graph_user", "match": {"regex": "(?:/wrk2-api/user/follow)|(?:/wrk2-api/user/unfollow)", "method": "POST"}, "max_concurrency": 10},
			    {"name": "user", "match": {"regex": "(?:/api/user/login)|(?:/wrk2-api/user/register)"}, "max_concurrency": 10},
			    {"name": "user-timeline", "match": {"exact": "/wrk2-api/user-timeline/read", "method": "GET"}, "max_concurrency": 10}
			  ]
			}
			""";

	@TempDir
	Path dir;

	enum Format {

		ZIPKIN(TraceWriters::zipkin), JAEGER(TraceWriters::jaeger), OTLP(TraceWriters::otlp);

		final Function<List<SocialNetwork.GenSpan>, String> writer;

		Format(Function<List<SocialNetwork.GenSpan>, String> writer) {
			this.writer = writer;
		}

	}

	static Path write(Path dir, Format format) throws IOException {
		Path file = dir.resolve("socialnetwork-" + format.name().toLowerCase(java.util.Locale.ROOT) + ".json");
		Files.writeString(file, format.writer.apply(SocialNetwork.spans()));
		return file;
	}

	@ParameterizedTest
	@EnumSource(Format.class)
	void learnsTheFrontEndsPathsFromEachFormat(Format format) throws IOException {
		// Kept in target, so that the command can be tried on them: see
		// pathfence-discovery/README.md.
		Path traces = write(Files.createDirectories(Path.of("target/socialnetwork-traces")), format);
		Path yaml = this.dir.resolve("paths.yml");
		Path filter = this.dir.resolve("filter.json");
		CliRun run = CliRun.of("paths", "--service", SocialNetwork.FRONT_END, traces.toString(), "--json", "--yaml",
				yaml.toString(), "--filter-json", filter.toString(), "--format", format.name().toLowerCase());
		assertThat(run.code()).as(run.err()).isZero();
		assertThat(run.err()).isEmpty();
		JsonNode report = JsonMapper.builder().build().readTree(run.out());

		Map<String, List<String>> routes = new LinkedHashMap<>();
		for (JsonNode route : report.get("routes")) {
			List<String> calls = new ArrayList<>();
			route.get("calls").properties().forEach((call) -> calls.add(call.getKey() + "=" + call.getValue()));
			routes.put(route.get("method").asString() + " " + route.get("pattern").asString() + " ("
					+ route.get("requests").asInt() + ")", calls);
		}
		assertThat(routes).containsExactly(Map.entry("GET /api/user/login (1)", List.of("user=1")),
				Map.entry("GET /index.html (1)", List.of()),
				Map.entry("GET /wrk2-api/home-timeline/read (2)", List.of("home-timeline=2")),
				Map.entry("POST /wrk2-api/post/compose (3)",
						List.of("compose-post=3", "media=3", "text=3", "unique-id=3", "user=3")),
				Map.entry("GET /wrk2-api/post/{id} (2)", List.of("post-storage=2")),
				Map.entry("GET /wrk2-api/user-timeline/read (1)", List.of("user-timeline=1")),
				Map.entry("POST /wrk2-api/user/follow (1)", List.of("social-graph=1", "user=1")),
				Map.entry("POST /wrk2-api/user/register (1)", List.of("user=1")),
				Map.entry("POST /wrk2-api/user/unfollow (1)", List.of("social-graph=1", "user=1")),
				Map.entry("GET /wrk2-api/user/{id}/followers (1)", List.of("social-graph=1")));

		assertThat(Files.readString(yaml)).endsWith(EXPECTED_YAML);
		assertThat(Files.readString(filter)).isEqualTo(EXPECTED_FILTER_JSON);
		assertThat(report.get("warnings")).isEmpty();

		JsonNode compose = critical(report, "POST /wrk2-api/post/compose");
		assertThat(compose.get("requests").asInt()).isEqualTo(3);
		assertThat(compose.get("median_ms").asDouble()).isEqualTo(100.0);
		assertThat(compose.get("dominant_downstream").asString()).isEqualTo("compose-post");
		// Two requests: text 38 ms then compose-post 53 ms, the front end's own 9 ms; in
		// the
		// third, media (3 to 60 ms) overlaps both and takes 20 ms of the path.
		assertThat(shares(compose.get("by_downstream"))).containsExactly(Map.entry("compose-post", 0.53),
				Map.entry("text", 0.38), Map.entry("nginx-web-server", 0.09), Map.entry("media", 0.0));
		assertThat(shares(compose.get("by_service"))).containsExactly(Map.entry("social-graph", 0.2),
				Map.entry("post-storage", 0.15), Map.entry("user-mention", 0.15), Map.entry("text", 0.13),
				Map.entry("home-timeline", 0.1), Map.entry("url-shorten", 0.1), Map.entry("nginx-web-server", 0.09),
				Map.entry("compose-post", 0.08), Map.entry("media", 0.0));

		JsonNode home = critical(report, "GET /wrk2-api/home-timeline/read");
		assertThat(home.get("dominant_downstream").asString()).isEqualTo("home-timeline");
		assertThat(shares(home.get("by_downstream"))).containsExactly(Map.entry("home-timeline", 0.8),
				Map.entry("nginx-web-server", 0.2));
		assertThat(shares(home.get("by_service"))).containsExactly(Map.entry("post-storage", 0.6),
				Map.entry("home-timeline", 0.2), Map.entry("nginx-web-server", 0.2));

		// follow calls user from an asynchronous task of the front end's own.
		JsonNode follow = critical(report, "POST /wrk2-api/user/follow");
		assertThat(shares(follow.get("by_downstream"))).containsExactly(Map.entry("social-graph", 0.6),
				Map.entry("nginx-web-server", 0.2), Map.entry("user", 0.2));

		JsonNode index = critical(report, "GET /index.html");
		assertThat(index.get("dominant_downstream").isNull()).isTrue();
		assertThat(shares(index.get("by_service"))).containsExactly(Map.entry("nginx-web-server", 1.0));
	}

	@ParameterizedTest
	@EnumSource(Format.class)
	void printsTheSameReportFromEachFormat(Format format) throws IOException {
		String zipkin = CliRun
			.of("paths", "--service", SocialNetwork.FRONT_END, write(this.dir, Format.ZIPKIN).toString())
			.out();
		String other = CliRun.of("paths", "--service", SocialNetwork.FRONT_END, write(this.dir, format).toString())
			.out();
		assertThat(other.replace("-" + format.name().toLowerCase(), "-zipkin")).isEqualTo(zipkin);
	}

	private static JsonNode critical(JsonNode report, String route) {
		for (JsonNode path : report.get("critical_paths")) {
			if (path.get("route").asString().equals(route)) {
				return path;
			}
		}
		throw new AssertionError("no critical path for " + route);
	}

	private static Map<String, Double> shares(JsonNode shares) {
		Map<String, Double> map = new LinkedHashMap<>();
		shares.properties().forEach((share) -> map.put(share.getKey(), share.getValue().asDouble()));
		return map;
	}

}
