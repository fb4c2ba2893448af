package io.pathfence.whatif;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

class CallProfileTests {

	@Test
	void aProfilingRunsCountsGiveTheRatiosInOrder() {
		Map<String, Long> served = new LinkedHashMap<>();
		served.put("front-end", 1000L);
		served.put("orders", 450L);
		served.put("carts", 1800L);
		CallProfile profile = CallProfile.measured(served, 1000);

		assertThat(profile.services()).containsExactly("front-end", "orders", "carts");
		assertThat(profile.callsPerRequest("orders")).isEqualTo(0.45);
		assertThat(profile.callsPerRequest("carts")).isEqualTo(1.8);
		assertThat(profile.contains("payment")).isFalse();
	}

	@Test
	void badCountsAndRatiosAreRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> CallProfile.measured(Map.of("a", 5L), 0))
			.withMessage(
					"completed requests must be at least 1, was 0: the profiling run completed no end-user request");
		assertThatIllegalArgumentException().isThrownBy(() -> CallProfile.measured(Map.of("a", -5L), 10))
			.withMessage("served calls of service 'a' must be at least 0, was -5");
		assertThatIllegalArgumentException().isThrownBy(() -> CallProfile.of(Map.of("a", Double.POSITIVE_INFINITY)))
			.withMessage("calls per request of service 'a' must be a finite number of at least 0, was Infinity");
		assertThatIllegalArgumentException().isThrownBy(() -> CallProfile.of(Map.of()))
			.withMessage("a call profile needs at least one service");
		assertThatIllegalArgumentException().isThrownBy(() -> CallProfile.of(Map.of("a", 1)).callsPerRequest("b"))
			.withMessage("'b' is not a service of the call profile (known: [a])");
	}

}
