package io.pathfence.demo.run;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ModeTests {

	@Test
	void learnedModeFencesTheSharedServiceWithDiscoveryEnforcing() {
		assertThat(Mode.of("pathfence-learned").serviceArguments(true)).contains("--pathfence.enabled=true",
				"--pathfence.discovery.mode=enforce");
		assertThat(Mode.PATHFENCE_LEARNED.fenced()).isTrue();
	}

	@Test
	void learnedModeLeavesTheOtherServicesAlone() {
		assertThat(Mode.PATHFENCE_LEARNED.serviceArguments(false)).contains("--pathfence.enabled=false")
			.noneMatch((argument) -> argument.startsWith("--pathfence.discovery"));
	}

	@Test
	void handConfiguredModeDoesNotLearn() {
		assertThat(Mode.PATHFENCE.serviceArguments(true)).noneMatch((argument) -> argument.contains("discovery"));
	}

}
