package io.pathfence.demo.whatif;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class ReductionsTests {

	@Test
	void aRangeWithAStepEndsOnItsLastValue() {
		assertThat(Reductions.parse("10..50%/10")).containsExactly(0.1, 0.2, 0.3, 0.4, 0.5);
		assertThat(Reductions.parse("5..20/7.5")).containsExactly(0.05, 0.125, 0.2);
	}

	@Test
	void aListIsTakenInItsOrder() {
		assertThat(Reductions.parse("30%, 15%")).containsExactly(0.3, 0.15);
	}

	@ParameterizedTest
	@ValueSource(strings = { "0%", "100%", "150%", "-10%", "0..50%/10", "10..100%/10" })
	void aReductionOutsideZeroToAHundredIsRefusedSayingSo(String reduce) {
		assertThatIllegalArgumentException().isThrownBy(() -> Reductions.parse(reduce))
			.withMessageContaining("strictly between 0 % and 100 %");
	}

	@ParameterizedTest
	@ValueSource(strings = { "ten", "10", "50..10%/10", "10..50%/0", "" })
	void somethingThatIsNoReductionIsRefusedSayingWhatIs(String reduce) {
		assertThatIllegalArgumentException().isThrownBy(() -> Reductions.parse(reduce))
			.withMessageStartingWith("--reduce");
	}

}
