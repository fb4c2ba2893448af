package io.pathfence.demo.run;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class TraceTests {

	@Test
	void largeBurstIsAPlateauOfTwoAndAHalfTimesTheBaseRateForTwoSeconds() {
		assertThat(Trace.LARGE.multiplierAt(1)).isEqualTo(1);
		assertThat(Trace.LARGE.multiplierAt(3)).isEqualTo(2.5);
		assertThat(Trace.LARGE.multiplierAt(4.9)).isEqualTo(2.5);
		assertThat(Trace.LARGE.multiplierAt(5.125)).isCloseTo(1.75, within(1e-9));
		assertThat(Trace.LARGE.multiplierAt(6)).isEqualTo(1);
	}

	@Test
	void quickBurstsAreTwoHalfSecondSpikesPerPeriod() {
		assertThat(Trace.QUICK.multiplierAt(3.2)).isEqualTo(4);
		assertThat(Trace.QUICK.multiplierAt(5)).isEqualTo(1);
		assertThat(Trace.QUICK.multiplierAt(7.4)).isEqualTo(4);
		assertThat(Trace.QUICK.multiplierAt(8)).isEqualTo(1);
	}

	@Test
	void slowBurstRampsUpOverThreeSecondsAndDownAgain() {
		assertThat(Trace.SLOW.multiplierAt(2)).isEqualTo(1);
		assertThat(Trace.SLOW.multiplierAt(3.5)).isCloseTo(1.5, within(1e-9));
		assertThat(Trace.SLOW.multiplierAt(5.5)).isEqualTo(2);
		assertThat(Trace.SLOW.multiplierAt(7.5)).isCloseTo(1.5, within(1e-9));
		assertThat(Trace.SLOW.multiplierAt(9.5)).isEqualTo(1);
	}

	@Test
	void everyShapeRepeatsEachPeriod() {
		for (Trace trace : Trace.values()) {
			for (double t = 0; t < Trace.PERIOD_SECONDS; t += 0.37) {
				assertThat(trace.multiplierAt(t + 2 * Trace.PERIOD_SECONDS)).as("%s at %s s", trace, t)
					.isCloseTo(trace.multiplierAt(t), within(1e-9));
				assertThat(trace.multiplierAt(t)).isBetween(1.0, 4.0);
			}
		}
	}

}
