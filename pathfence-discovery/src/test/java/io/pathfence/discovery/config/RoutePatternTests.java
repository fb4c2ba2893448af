package io.pathfence.discovery.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class RoutePatternTests {

	@ParameterizedTest(name = "{0} -> {1} {2}")
	@CsvSource(delimiter = '|', quoteCharacter = '\'', textBlock = """
			/orders                | EXACT  | /orders                 | /orders
			/                      | EXACT  | /                       | /
			/static/**             | PREFIX | /static                 | /static/0
			/**                    | PREFIX | /                       | /0
			/files/{*path}         | PREFIX | /files                  | /files/0
			/orders/{id}           | PREFIX | /orders/                | /orders/0
			/api/v1/carts/{cartId} | PREFIX | /api/v1/carts/          | /api/v1/carts/0
			/{id}                  | REGEX  | /[^/]+                  | /0
			/orders/{id}/items     | REGEX  | /orders/[^/]+/items     | /orders/0/items
			/a/{x}/b/{y}           | REGEX  | /a/[^/]+/b/[^/]+        | /a/0/b/0
			/a/{id}/**             | REGEX  | /a/[^/]+(?:/.*)?        | /a/0/0
			/*.html                | REGEX  | /[^/]*\\.html           | /0.html
			/v?/x                  | REGEX  | /v[^/]/x                | /v0/x
			/item/{id:[0-9]+}      | REGEX  | /item/(?:[0-9]+)        | /item/0
			/a.b/{id}/c+d          | REGEX  | /a\\.b/[^/]+/c\\+d      | /a.b/0/c+d
			""")
	void derivesTheFiltersMatchTheRegexAndASample(String pattern, FilterMatch.Kind kind, String value, String sample) {
		RoutePattern parsed = RoutePattern.parse(pattern);
		assertThat(parsed.filterMatch()).isEqualTo(new FilterMatch(kind, value));
		assertThat(parsed.sample()).isEqualTo(sample);
		assertThat(parsed.matches(sample)).isTrue();
		assertThat(parsed.filterMatch().matches(sample)).isTrue();
	}

	@Test
	void matchesWhatSpringsPathPatternMatches() {
		RoutePattern rest = RoutePattern.parse("/static/**");
		assertThat(rest.matches("/static")).isTrue();
		assertThat(rest.matches("/static/")).isTrue();
		assertThat(rest.matches("/static/css/a.css")).isTrue();
		assertThat(rest.matches("/statics")).isFalse();
		RoutePattern variable = RoutePattern.parse("/orders/{id}");
		assertThat(variable.matches("/orders/42")).isTrue();
		assertThat(variable.matches("/orders/")).isFalse();
		assertThat(variable.matches("/orders/42/items")).isFalse();
		// The filter's prefix for it is wider, which the writers check for.
		assertThat(variable.filterMatch().matches("/orders/42/items")).isTrue();
		RoutePattern literal = RoutePattern.parse("/a.b");
		assertThat(literal.matches("/a.b")).isTrue();
		assertThat(literal.matches("/axb")).isFalse();
	}

	@Test
	void aPatternWithARegexItsSampleCannotMatchHasNoSample() {
		assertThat(RoutePattern.parse("/item/{id:[a-z]+}").sample()).isNull();
	}

	@Test
	void refusesWhatPathPatternRefuses() {
		assertThatIllegalArgumentException().isThrownBy(() -> RoutePattern.parse("orders"))
			.withMessageContaining("starts with '/'");
		assertThatIllegalArgumentException().isThrownBy(() -> RoutePattern.parse("/a/**/b"))
			.withMessageContaining("'**' may only end a pattern");
		assertThatIllegalArgumentException().isThrownBy(() -> RoutePattern.parse("/a/{id"))
			.withMessageContaining("unclosed '{'");
		assertThatIllegalArgumentException().isThrownBy(() -> RoutePattern.parse("/a/{id:(}"))
			.withMessageContaining("invalid variable pattern");
	}

}
