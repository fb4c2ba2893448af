package io.pathfence.demo.run;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.pathfence.demo.topology.Topologies;
import io.pathfence.demo.topology.Topology;
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
	void pathFenceIsolatesWhenP99StaysWithinOneAndAHalfTimesAndNoRequestTakesOverOneSecond() {
		assertThat(Verdict.pathFenceIsolates(stats(60, 0), FAULT_FREE)).isTrue();
		assertThat(Verdict.pathFenceIsolates(stats(61, 0), FAULT_FREE)).isFalse();
		assertThat(Verdict.pathFenceIsolates(stats(50, 1), FAULT_FREE)).isFalse();
	}

	@Test
	void verdictLinesStateTheRatioThatIsChecked() {
		Topology shop = Topologies.load("sock-shop");
		List<String> justWithin = Verdict.describe(List.of(result(shop, 60)), shop);
		List<String> justOver = Verdict.describe(List.of(result(shop, 61)), shop);
		assertThat(justWithin).isNotEmpty().allSatisfy((line) -> assertThat(line).contains("criterion met"));
		assertThat(justOver).isNotEmpty()
			.allSatisfy((line) -> assertThat(line).contains("criterion NOT met (p99 within 1.5 x and none over 1 s)"));
	}

	@Test
	void durationsReadAsMillisecondsSecondsMinutesOrIso() {
		RunCommand.DurationConverter converter = new RunCommand.DurationConverter();
		assertThat(converter.convert("750ms")).hasMillis(750);
		assertThat(converter.convert("10s")).hasSeconds(10);
		assertThat(converter.convert("2m")).hasMinutes(2);
		assertThat(converter.convert("PT1.5S")).hasMillis(1500);
	}

	private static ModeResult result(Topology topology, double faultedP99) {
		Map<String, PathStats> faultFree = new LinkedHashMap<>();
		Map<String, PathStats> faulted = new LinkedHashMap<>();
		for (String path : topology.paths()) {
			faultFree.put(path, FAULT_FREE);
			faulted.put(path, stats(faultedP99, 0));
		}
		return new ModeResult(Mode.PATHFENCE, Trace.LARGE, faultFree, faulted, stats(faultedP99, 0), Map.of(), 0,
				List.of(), 0, 0, null, null, 0);
	}

	private static PathStats stats(double p99, int overOneSecond) {
		return new PathStats(1000, p99 / 2, p99 / 3, p99, p99 * 1.5, p99 * 2, 1000, 0, overOneSecond, 0, 0);
	}

}
