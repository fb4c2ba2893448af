package io.pathfence.demo.run;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

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

	@Test
	void envoyLearnedModeIsTheEnvoyModeWithItsFilterLearnedFromTraces() {
		Mode mode = Mode.of("envoy-learned");

		assertThat(mode).isEqualTo(Mode.ENVOY_LEARNED);
		assertThat(mode.behindEnvoy()).isTrue();
		assertThat(mode.fenced()).isTrue();
		assertThat(mode.learnsFilterFromTraces()).isTrue();
		assertThat(mode.needsTraces()).isTrue();
		// The sidecar fences; the service itself runs without the starter's fence.
		assertThat(mode.serviceArguments(true)).contains("--pathfence.enabled=false")
			.noneMatch((argument) -> argument.contains("discovery"));
	}

	@Test
	void onlyTheLearningEnvoyModeNeedsTraces() {
		assertThat(Mode.values()).filteredOn(Mode::needsTraces).containsExactly(Mode.ENVOY_LEARNED);
		assertThat(Mode.ENVOY.learnsFilterFromTraces()).isFalse();
		assertThat(Mode.values()).filteredOn(Mode::behindEnvoy).containsExactly(Mode.ENVOY, Mode.ENVOY_LEARNED);
	}

	@Test
	void anUnknownModeIsRefusedNamingEveryMode() {
		assertThatIllegalArgumentException().isThrownBy(() -> Mode.of("envoy-traced"))
			.withMessageContaining("Unknown mode 'envoy-traced'")
			.withMessageContaining("envoy-learned")
			.withMessageContaining("pathfence-learned");
	}

}
