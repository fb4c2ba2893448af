package io.pathfence.tuning;

import java.util.List;
import java.util.OptionalDouble;
import java.util.OptionalInt;

import org.junit.jupiter.api.Test;

import io.pathfence.sct.SctResult;
import io.pathfence.sct.Verdict;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class ReservationStepTests {

	private final ReservationStep step = new ReservationStep(2, 30, 4, 2);

	private static SctResult plateau(int recommended) {
		return new SctResult(Verdict.PLATEAU, OptionalInt.of(recommended), OptionalInt.of(recommended + 5),
				OptionalInt.of(recommended), OptionalDouble.of(100), "plateau", 100, List.of());
	}

	private static SctResult explore(int recommended) {
		return new SctResult(Verdict.EXPLORE, OptionalInt.of(recommended - 1), OptionalInt.of(recommended - 1),
				OptionalInt.of(recommended), OptionalDouble.of(100), "explore", 100, List.of());
	}

	private static SctResult undecided() {
		return new SctResult(Verdict.INSUFFICIENT_DATA, OptionalInt.empty(), OptionalInt.empty(), OptionalInt.empty(),
				OptionalDouble.empty(), "too few samples", 3, List.of());
	}

	@Test
	void undecidedWindowKeepsTheReservation() {
		assertThat(this.step.next(undecided(), 10, 50)).isEqualTo(10);
	}

	@Test
	void plateauRecommendationIsTakenInBoundedSteps() {
		assertThat(this.step.next(plateau(4), 16, 50)).isEqualTo(12);
		assertThat(this.step.next(plateau(4), 6, 50)).isEqualTo(4);
		assertThat(this.step.next(plateau(20), 10, 50)).isEqualTo(14);
	}

	@Test
	void smallPlateauChangeIsHeldByHysteresis() {
		assertThat(this.step.next(plateau(9), 10, 50)).isEqualTo(10);
		assertThat(this.step.next(plateau(8), 10, 50)).isEqualTo(8);
	}

	@Test
	void exploringStepIsAlwaysTaken() {
		assertThat(this.step.next(explore(11), 10, 50)).isEqualTo(11);
	}

	@Test
	void neverBelowMinOrAboveMaxOrTheRoomInThePool() {
		assertThat(this.step.next(plateau(1), 4, 50)).isEqualTo(2);
		assertThat(this.step.next(explore(40), 28, 50)).isEqualTo(30);
		assertThat(this.step.next(explore(20), 10, 12)).isEqualTo(12);
	}

	@Test
	void invalidGuardsAreRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> new ReservationStep(5, 4, 1, 0));
		assertThatIllegalArgumentException().isThrownBy(() -> new ReservationStep(1, 4, 0, 0));
	}

}
