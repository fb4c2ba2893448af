package io.pathfence.demo.whatif;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.within;

class NearestMedianTests {

	@Test
	void theMajorityKeptIsThreeOfFiveTwoOfThreeAndOneOfOne() {
		assertThat(NearestMedian.kept(1)).isEqualTo(1);
		assertThat(NearestMedian.kept(2)).isEqualTo(2);
		assertThat(NearestMedian.kept(3)).isEqualTo(2);
		assertThat(NearestMedian.kept(4)).isEqualTo(3);
		assertThat(NearestMedian.kept(5)).isEqualTo(3);
	}

	@Test
	void oneWindowSpentElsewhereIsLeftOutWhereThePlainMeanFollowsIt() {
		// A run of about 120 req/s whose third window lost 14 %.
		List<Double> windows = List.of(121.0, 119.0, 103.0, 120.0, 122.0);

		assertThat(NearestMedian.nearest(windows)).containsExactly(119.0, 120.0, 121.0);
		assertThat(NearestMedian.mean(windows)).isCloseTo(120.0, within(1e-9));
		// The control: the plain mean is dragged 3 % below the run's level.
		double plain = windows.stream().mapToDouble(Double::doubleValue).average().orElseThrow();
		assertThat(plain).isLessThan(0.98 * 120.0);
	}

	@Test
	void anOutlierEitherSideIsLeftOutWhateverItsSize() {
		assertThat(NearestMedian.mean(List.of(1e6, 100.0, 101.0, 99.0, 0.0))).isCloseTo(100.0, within(1e-9));
		assertThat(NearestMedian.mean(List.of(100.0, 100.0, 100.0, 100.0, 1e9))).isEqualTo(100.0);
	}

	@Test
	void theKeptValuesAreThoseNearestTheMedianNotTheMiddleOnesByRank() {
		// Sorted 0, 5, 10, 10.5, 11: the median is 10, and 11 (1 away) is nearer than 5
		// (5 away), which the middle three by rank would keep.
		assertThat(NearestMedian.nearest(List.of(5.0, 10.0, 10.5, 11.0, 0.0))).containsExactly(10.0, 10.5, 11.0);
		assertThat(NearestMedian.mean(List.of(5.0, 10.0, 10.5, 11.0, 0.0))).isCloseTo(10.5, within(1e-9));
	}

	@Test
	void anEvenCountKeepsTheValuesAroundTheMeanOfTheMiddleTwo() {
		// Median (10 + 12) / 2 = 11: 10, 12 and 13 are nearer than 2.
		assertThat(NearestMedian.nearest(List.of(2.0, 10.0, 12.0, 13.0))).containsExactly(10.0, 12.0, 13.0);
	}

	@Test
	void oneValueIsItsOwnFigureAndEqualValuesTheirs() {
		assertThat(NearestMedian.mean(List.of(42.0))).isEqualTo(42.0);
		assertThat(NearestMedian.mean(List.of(7.0, 7.0, 7.0))).isEqualTo(7.0);
	}

	@Test
	void noValuesOrAValueThatIsNoNumberIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> NearestMedian.mean(List.of()))
			.withMessageContaining("no values");
		assertThatIllegalArgumentException().isThrownBy(() -> NearestMedian.mean(List.of(1.0, Double.NaN, 2.0)))
			.withMessageContaining("finite");
	}

}
