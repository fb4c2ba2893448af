package io.pathfence.whatif.rounds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class DebtTests {

	@Test
	void wholeNanosecondsArePaidAndTheFractionCarriesOver() {
		Debt debt = new Debt(2.5);
		debt.accrue(3);
		assertThat(debt.take()).isEqualTo(7);
		assertThat(debt.owedNanos()).isCloseTo(0.5, within(1e-12));
		debt.accrue(1);
		assertThat(debt.take()).isEqualTo(3);
		assertThat(debt.take()).isZero();
	}

	@Test
	void nothingIsLostOverManyRounds() {
		Debt debt = new Debt(1.0 / 3);
		long paid = 0;
		for (int round = 0; round < 3000; round++) {
			debt.accrue(1);
			paid += debt.take();
		}
		assertThat(paid + debt.owedNanos()).isCloseTo(1000, within(1e-6));
	}

}
