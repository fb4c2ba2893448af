package io.pathfence.discovery.trace;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

class PathNormalizerTests {

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			/orders                                       | /orders
			/orders/42                                    | /orders/{id}
			/orders/42/items/7                            | /orders/{id}/items/{id2}
			/carts/3fa85f64-5717-4562-b3fc-2c963f66afa6   | /carts/{id}
			/media/9f0c2b3a                               | /media/{id}
			/media/deadbeef                               | /media/deadbeef
			/t/AbCdEf0123456789xyz                        | /t/{id}
			/api/v2/users                                 | /api/v2/users
			/search?q=1                                   | /search
			''                                            | /
			orders/1                                      | /orders/{id}
			/a/b#frag                                     | /a/b
			""")
	void identifiersBecomeVariables(String path, String pattern) {
		assertThat(PathNormalizer.normalize(path)).isEqualTo(pattern);
	}

}
