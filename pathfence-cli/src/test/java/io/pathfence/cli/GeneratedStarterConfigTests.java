package io.pathfence.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.FileSystemResource;
import org.springframework.mock.web.MockHttpServletRequest;

import io.pathfence.autoconfigure.PathFenceAutoConfiguration;
import io.pathfence.autoconfigure.PathFenceWebAutoConfiguration;
import io.pathfence.core.PathFence;
import io.pathfence.discovery.config.StarterYaml;
import io.pathfence.web.RequestClassifier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The pathfence.paths block the command writes, bound and validated by the real starter,
 * which then classifies a request of each learned route onto its path.
 */
class GeneratedStarterConfigTests {

	private final WebApplicationContextRunner contextRunner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(PathFenceAutoConfiguration.class, PathFenceWebAutoConfiguration.class,
				WebMvcAutoConfiguration.class))
		.withPropertyValues("pathfence.pool-size=100");

	@TempDir
	Path dir;

	@Test
	void theStarterAcceptsTheSocialNetworksPathsAndClassifiesEachRouteOntoItsPath() throws IOException {
		Path yaml = this.dir.resolve("paths.yml");
		Path traces = SocialNetworkTests.write(this.dir, SocialNetworkTests.Format.ZIPKIN);
		CliRun run = CliRun.of("paths", "--service", SocialNetwork.FRONT_END, traces.toString(), "--yaml",
				yaml.toString());
		assertThat(run.code()).as(run.err()).isZero();
		this.contextRunner.withInitializer(yaml(yaml)).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(PathFence.class).pathNames()).containsExactly(
					"compose-post_media_text_unique-id_user", "home-timeline", "post-storage", "social-graph",
					"social-graph_user", "user", "user-timeline", PathFence.LOCAL);
			Map<String, String> expected = new LinkedHashMap<>();
			expected.put("POST /wrk2-api/post/compose", "compose-post_media_text_unique-id_user");
			expected.put("GET /wrk2-api/home-timeline/read", "home-timeline");
			expected.put("GET /wrk2-api/post/2001", "post-storage");
			expected.put("GET /wrk2-api/user/17/followers", "social-graph");
			expected.put("POST /wrk2-api/user/follow", "social-graph_user");
			expected.put("POST /wrk2-api/user/unfollow", "social-graph_user");
			expected.put("POST /wrk2-api/user/register", "user");
			expected.put("GET /api/user/login", "user");
			expected.put("GET /wrk2-api/user-timeline/read", "user-timeline");
			expected.put("GET /index.html", PathFence.LOCAL);
			assertThat(classified(context.getBean(RequestClassifier.class), expected.keySet())).isEqualTo(expected);
		});
	}

	@Test
	void theOrderOfThePathsKeepsALiteralRouteOffTheVariableOneThatAlsoMatchesIt() throws IOException {
		Path yaml = this.dir.resolve("shop.yml");
		Files.writeString(yaml, StarterYaml.write(ShopRoutes.PLAN, 10, List.of()).text());
		this.contextRunner.withInitializer(yaml(yaml)).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(classified(context.getBean(RequestClassifier.class), ShopRoutes.REQUESTS.keySet()))
				.isEqualTo(ShopRoutes.REQUESTS);
		});
		// Control: the same paths in name order put /orders/summary on carts_user.
		String text = Files.readString(yaml);
		assertThat(text.indexOf("    reports:")).isLessThan(text.indexOf("    carts_user:"));
		Path nameOrder = this.dir.resolve("name-order.yml");
		Files.writeString(nameOrder, inNameOrder(text));
		this.contextRunner.withInitializer(yaml(nameOrder)).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(PathFence.class).pathNames()).startsWith("carts_user");
			assertThat(context.getBean(RequestClassifier.class).classify(request("GET /orders/summary")))
				.isEqualTo("carts_user");
		});
	}

	/** The YAML with its path blocks sorted by name. */
	private static String inNameOrder(String yaml) {
		List<String> lines = yaml.lines().toList();
		StringBuilder head = new StringBuilder();
		java.util.TreeMap<String, StringBuilder> blocks = new java.util.TreeMap<>();
		StringBuilder tail = new StringBuilder();
		StringBuilder current = null;
		for (String line : lines) {
			if (line.matches("    [^ ].*:")) {
				current = new StringBuilder();
				blocks.put(line.trim(), current);
			}
			else if (current != null && !line.startsWith("      ")) {
				current = null;
			}
			StringBuilder into = (current != null) ? current : blocks.isEmpty() ? head : tail;
			into.append(line).append('\n');
		}
		StringBuilder sorted = new StringBuilder(head);
		blocks.values().forEach(sorted::append);
		return sorted.append(tail).toString();
	}

	@Test
	void aGeneratedPathCanBeResizedByAPropertyOverTheGeneratedBlock() throws IOException {
		// Users keep the generated YAML and override a size from a .properties file or
		// the command line: the underscore of a name must survive both.
		Path yaml = this.dir.resolve("shop.yml");
		Files.writeString(yaml, StarterYaml.write(ShopRoutes.PLAN, 10, List.of()).text());
		this.contextRunner.withInitializer(yaml(yaml))
			.withPropertyValues("pathfence.paths.payment_shipping.permits=5")
			.run((context) -> {
				PathFence fence = context.getBean(PathFence.class);
				assertThat(fence.pathNames()).hasSize(5).contains("payment_shipping", "carts_user");
				assertThat(fence.figures("payment_shipping").permits()).isEqualTo(5);
				assertThat(fence.figures("carts_user").permits()).isEqualTo(10);
			});
	}

	private static Map<String, String> classified(RequestClassifier classifier, Iterable<String> requests) {
		Map<String, String> classified = new LinkedHashMap<>();
		requests.forEach((request) -> classified.put(request, classifier.classify(request(request))));
		return classified;
	}

	private static MockHttpServletRequest request(String request) {
		String[] parts = request.split(" ", 2);
		return new MockHttpServletRequest(parts[0], parts[1]);
	}

	/** The file as an application.yml: below the properties a test adds. */
	private static ApplicationContextInitializer<ConfigurableApplicationContext> yaml(Path file) {
		return (context) -> {
			try {
				List<PropertySource<?>> sources = new YamlPropertySourceLoader().load("generated",
						new FileSystemResource(file));
				sources.forEach(context.getEnvironment().getPropertySources()::addLast);
			}
			catch (IOException ex) {
				throw new IllegalStateException(ex);
			}
		};
	}

}
