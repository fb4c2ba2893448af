package io.pathfence.discovery;

import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class PathNamesTests {

	/** What both the starter and the filter accept. */
	private static final String VALID = "[A-Za-z0-9][A-Za-z0-9_-]*";

	@Test
	void setIsSortedAndJoinedWithPlus() {
		assertThat(PathNames.setName(List.of("shipping", "payment"))).isEqualTo("payment+shipping");
	}

	@Test
	void pathNameJoinsSortedServicesWithAnUnderscore() {
		assertThat(PathNames.pathName(List.of("shipping", "payment"))).isEqualTo("payment_shipping");
		assertThat(PathNames.pathName(List.of("unique-id", "compose-post", "text")))
			.isEqualTo("compose-post_text_unique-id");
	}

	@Test
	void charactersEitherConfigurationRefusesBecomeSingleDashes() {
		assertThat(PathNames.pathName(List.of("orders.default.svc:8080"))).isEqualTo("orders-default-svc-8080");
		// An underscore only ever joins two services' names.
		assertThat(PathNames.pathName(List.of("compose_post__service"))).isEqualTo("compose-post-service");
		assertThat(PathNames.pathName(List.of("[::1]:8081", "payment"))).isEqualTo("1-8081_payment");
		assertThat(PathNames.pathName(List.of("__"))).isEqualTo("x");
		for (String name : List.of("a+b", "-x-", "a b", "ÄÖ", "10.0.0.1:80")) {
			assertThat(PathNames.pathName(List.of(name, "z"))).matches(VALID);
		}
	}

	@Test
	void longNamesAreCutAndEndInAHashOfTheWholeSet() {
		List<String> five = List.of("compose-post-service", "media-service", "text-service", "unique-id-service",
				"user-service");
		List<String> other = List.of("compose-post-service", "media-service", "text-service", "unique-id-service",
				"user-timeline-service");
		String name = PathNames.pathName(five);
		assertThat(name).hasSizeLessThanOrEqualTo(PathNames.MAX_LENGTH)
			.startsWith("compose-post-service_media-service_text-service_uni")
			.matches(VALID + "-[0-9a-f]{8}");
		assertThat(PathNames.pathName(other)).isNotEqualTo(name).hasSizeLessThanOrEqualTo(PathNames.MAX_LENGTH);
		assertThat(PathNames.pathName(five)).isEqualTo(name);
	}

	@Test
	void aTakenOrReservedNameGetsTheFirstFreeNumber() {
		assertThat(PathNames.unique("payment", Set.of())).isEqualTo("payment");
		assertThat(PathNames.unique("payment", Set.of("payment", "payment-2"))).isEqualTo("payment-3");
		assertThat(PathNames.unique("local", Set.of())).isEqualTo("local-2");
	}

	@Test
	void aPathCallsSomething() {
		assertThatIllegalArgumentException().isThrownBy(() -> PathNames.pathName(List.of()));
	}

}
