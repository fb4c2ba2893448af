package io.pathfence.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pathfence.discovery.config.FilterJson;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The filter configuration the command writes, parsed by the filter's own code (the
 * parsing and validation its on_configure runs), which then classifies a request of each
 * learned route onto its path.
 */
class GeneratedFilterConfigTests {

	@TempDir
	Path dir;

	@Test
	void theFilterAcceptsTheSocialNetworksPathsAndClassifiesEachRouteOntoItsPath() throws Exception {
		Path json = this.dir.resolve("filter.json");
		Path traces = SocialNetworkTests.write(this.dir, SocialNetworkTests.Format.OTLP);
		CliRun run = CliRun.of("paths", "--service", SocialNetwork.FRONT_END, traces.toString(), "--filter-json",
				json.toString());
		assertThat(run.code()).as(run.err()).isZero();
		FilterConfigCheck.Result result = FilterConfigCheck.check(json,
				List.of("POST /wrk2-api/post/compose", "GET /wrk2-api/home-timeline/read", "GET /wrk2-api/post/2001",
						"GET /wrk2-api/user/17/followers", "POST /wrk2-api/user/follow", "POST /wrk2-api/user/unfollow",
						"POST /wrk2-api/user/register", "GET /api/user/login", "GET /wrk2-api/user-timeline/read",
						"GET /index.html", "GET /wrk2-api/post/compose"),
				this.dir);
		assertThat(result.code()).as(String.join("\n", result.lines())).isZero();
		assertThat(result.lines()).containsExactly(
				"POST /wrk2-api/post/compose -> compose-post_media_text_unique-id_user",
				"GET /wrk2-api/home-timeline/read -> home-timeline", "GET /wrk2-api/post/2001 -> post-storage",
				"GET /wrk2-api/user/17/followers -> social-graph", "POST /wrk2-api/user/follow -> social-graph_user",
				"POST /wrk2-api/user/unfollow -> social-graph_user", "POST /wrk2-api/user/register -> user",
				"GET /api/user/login -> user", "GET /wrk2-api/user-timeline/read -> user-timeline",
				"GET /index.html -> local",
				// Not a learned route: the prefix /wrk2-api/post/ for /wrk2-api/post/{id}
				// is wider.
				"GET /wrk2-api/post/compose -> post-storage");
	}

	@Test
	void theFilterAcceptsEscapedRegexesAndTheOrderThatKeepsEachRouteOnItsPath() throws Exception {
		Path json = this.dir.resolve("shop.json");
		Files.writeString(json, FilterJson.write(ShopRoutes.PLAN, 4).text());
		List<String> requests = new ArrayList<>(ShopRoutes.REQUESTS.keySet());
		FilterConfigCheck.Result result = FilterConfigCheck.check(json, requests, this.dir);
		assertThat(result.code()).as(String.join("\n", result.lines())).isZero();
		List<String> expected = new ArrayList<>();
		for (Map.Entry<String, String> request : ShopRoutes.REQUESTS.entrySet()) {
			expected.add(request.getKey() + " -> " + request.getValue());
		}
		assertThat(result.lines()).containsExactlyElementsOf(expected);
	}

	@Test
	void theCheckFailsOnAConfigurationTheFilterRefuses() throws Exception {
		// Control: the '+' of a downstream set is not a valid path name for the filter.
		Path json = this.dir.resolve("refused.json");
		Files.writeString(json, "{\"paths\": [{\"name\": \"payment+shipping\", \"max_concurrency\": 1}]}");
		FilterConfigCheck.Result result = FilterConfigCheck.check(json, List.of("GET /"), this.dir);
		assertThat(result.code()).isEqualTo(2);
		assertThat(result.lines()).singleElement()
			.asString()
			.startsWith("refused: invalid pathfence configuration: field `paths[0].name`");
	}

}
