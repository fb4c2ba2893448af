package io.pathfence.whatif.rounds;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RoundsTests {

	@Test
	void aRoundEveryBatchCountedFromTheStart() {
		Rounds rounds = new Rounds(100, 1234);
		assertThat(rounds.due(1333)).isZero();
		assertThat(rounds.due(1334)).isEqualTo(1);
		assertThat(rounds.due(1334)).isZero();
		assertThat(rounds.due(1433)).isZero();
		assertThat(rounds.due(1440)).isEqualTo(2);
		// A jump over several boundaries starts one round; the next is at the following
		// one.
		assertThat(rounds.due(1790)).isEqualTo(3);
		assertThat(rounds.due(1833)).isZero();
		assertThat(rounds.due(1834)).isEqualTo(4);
		assertThat(rounds.last()).isEqualTo(4);
	}

	@Test
	void aBatchOfOneStartsARoundPerCall() {
		Rounds rounds = new Rounds(1, 0);
		assertThat(rounds.due(0)).isZero();
		assertThat(rounds.due(1)).isEqualTo(1);
		assertThat(rounds.due(2)).isEqualTo(2);
	}

}
