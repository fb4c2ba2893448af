package io.pathfence.whatif;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.within;

import java.util.List;

import io.pathfence.whatif.Accuracy.Comparison;
import org.junit.jupiter.api.Test;

class AccuracyTests {

	@Test
	void relativeErrorsTheirRootMeanSquareTheWorstAndTheBias() {
		Accuracy accuracy = Accuracy.of(List.of(new Comparison(103, 100), new Comparison(192, 200)));

		assertThat(accuracy.count()).isEqualTo(2);
		// +3 % and -4 %.
		assertThat(accuracy.rmse()).isCloseTo(Math.sqrt((0.03 * 0.03 + 0.04 * 0.04) / 2), within(1e-12));
		assertThat(accuracy.worstError()).isCloseTo(-0.04, within(1e-12));
		assertThat(accuracy.meanError()).isCloseTo(-0.005, within(1e-12));
	}

	@Test
	void aPerfectPredictionHasNoError() {
		Accuracy accuracy = Accuracy.of(List.of(new Comparison(250, 250)));
		assertThat(accuracy.rmse()).isZero();
		assertThat(accuracy.worstError()).isZero();
	}

	@Test
	void nothingToCompareOrNonPositiveThroughputsAreRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> Accuracy.of(List.of()))
			.withMessage("accuracy needs at least one comparison");
		assertThatIllegalArgumentException().isThrownBy(() -> new Comparison(100, 0))
			.withMessage("a prediction and its truth must be positive throughputs, were 100.0 and 0.0");
	}

}
