package io.pathfence.demo.run;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class VerdictTests {

	private static final PathStats FAULT_FREE = stats(40, 0);

	@Test
	void baselineSuffersWhenP99GrowsFiveTimesOrARequestTakesOverOneSecond() {
		assertThat(Verdict.baselineSuffers(stats(200, 0), FAULT_FREE)).isTrue();
		assertThat(Verdict.baselineSuffers(stats(100, 1), FAULT_FREE)).isTrue();
		assertThat(Verdict.baselineSuffers(stats(199, 0), FAULT_FREE)).isFalse();
	}

	@Test
	void pathFenceIsolatesWhenP99StaysWithinTwiceAndNoRequestTakesOverOneSecond() {
		assertThat(Verdict.pathFenceIsolates(stats(80, 0), FAULT_FREE)).isTrue();
		assertThat(Verdict.pathFenceIsolates(stats(81, 0), FAULT_FREE)).isFalse();
		assertThat(Verdict.pathFenceIsolates(stats(50, 1), FAULT_FREE)).isFalse();
	}

	@Test
	void durationsReadAsMillisecondsSecondsMinutesOrIso() {
		RunCommand.DurationConverter converter = new RunCommand.DurationConverter();
		assertThat(converter.convert("750ms")).hasMillis(750);
		assertThat(converter.convert("10s")).hasSeconds(10);
		assertThat(converter.convert("2m")).hasMinutes(2);
		assertThat(converter.convert("PT1.5S")).hasMillis(1500);
	}

	private static PathStats stats(double p99, int overOneSecond) {
		return new PathStats(1000, p99 / 2, p99 / 3, p99, p99 * 1.5, p99 * 2, 1000, 0, overOneSecond, 0, 0);
	}

}
