package io.pathfence.web;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import org.springframework.http.server.PathContainer;
import org.springframework.http.server.RequestPath;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A literal route matched on the raw URI answers exactly as Spring's {@link PathPattern}
 * does on the parsed path, for every plain URI tried: the ones at the edges of a prefix
 * and many random ones.
 */
class LiteralPatternTests {

	private static final List<String> LITERAL = List.of("/orders/**", "/**", "/a/b", "/a/b/**", "/actuator/**",
			"/a.b/c~d_e-f/**", "/a", "/..", "/a/../b/**");

	private static final List<String> EDGES = List.of("/", "/orders", "/orders/", "/orders/1", "/orders//1", "/ordersx",
			"/Orders/1", "//orders/1", "/a", "/a/", "/a/b", "/a/b/", "/a/bc", "/a/b/c", "/a//b", "/a/b//",
			"/a.b/c~d_e-f", "/a.b/c~d_e-f/x", "/x/../orders/1", "/orders/../x", "/actuator", "/actuatorx/y", "/..",
			"/../", "/a/../b", "/a/../b/c", "/a/b/./c");

	@Test
	void aLiteralRouteMatchesPlainUrisExactlyAsItsPathPatternDoes() {
		List<String> uris = new ArrayList<>(EDGES);
		Random random = new Random(16);
		char[] alphabet = { 'a', 'b', '/', '.', '-', 'o' };
		for (int i = 0; i < 20_000; i++) {
			StringBuilder uri = new StringBuilder("/");
			int length = random.nextInt(9);
			for (int j = 0; j < length; j++) {
				uri.append(alphabet[random.nextInt(alphabet.length)]);
			}
			uris.add(uri.toString());
		}
		int matches = 0;
		for (String text : LITERAL) {
			PathPattern pattern = PathPatternParser.defaultInstance.parse(text);
			LiteralPattern literal = LiteralPattern.of(pattern);
			assertThat(literal).as("the literal form of %s", text).isNotNull();
			for (String uri : uris) {
				assertThat(LiteralPattern.isPlain(uri)).as(uri).isTrue();
				PathContainer path = RequestPath.parse(uri, "").pathWithinApplication();
				boolean expected = pattern.matches(path);
				assertThat(literal.matches(uri)).as("%s on %s", text, uri).isEqualTo(expected);
				matches += expected ? 1 : 0;
			}
		}
		assertThat(matches).as("matches among the cases, so that both answers are tried").isGreaterThan(1000);
	}

	@Test
	void patternsWithWildcardsOrVariablesAreLeftToPathPattern() {
		for (String text : List.of("/orders/{id}", "/orders/*", "/orders/?", "/a/*.json", "/orders/{*rest}", "/a;b/**",
				"/a%20b/**")) {
			PathPattern pattern = PathPatternParser.defaultInstance.parse(text);
			assertThat(LiteralPattern.of(pattern)).as(text).isNull();
		}
	}

	@Test
	void aUriWithSomethingToDecodeOrStripIsNotPlain() {
		assertThat(LiteralPattern.isPlain("/orders/%31")).isFalse();
		assertThat(LiteralPattern.isPlain("/orders;jsessionid=1/1")).isFalse();
		assertThat(LiteralPattern.isPlain("*")).isFalse();
		assertThat(LiteralPattern.isPlain("")).isFalse();
		assertThat(LiteralPattern.isPlain("/orders/1")).isTrue();
	}

}
