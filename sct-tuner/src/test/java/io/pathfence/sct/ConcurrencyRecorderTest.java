package io.pathfence.sct;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConcurrencyRecorderTest {

	private static final long MS = 1_000_000L;

	private final SctConfig config = SctConfig.builder()
		.interval(Duration.ofMillis(10))
		.window(Duration.ofMillis(30))
		.build();

	private final long[] now = { 1_000 * MS };

	private final List<Integer> dropped = new ArrayList<>();

	private final ConcurrencyRecorder recorder = Sct.recorder(config, () -> now[0], new SctMetrics() {
		@Override
		public void samplesDropped(int count) {
			dropped.add(count);
		}
	});

	@Test
	void arrivalReturnsTheClockReadingAndDepartureUsesIt() {
		now[0] += 2 * MS;
		long arrival = recorder.arrived();
		now[0] += 5 * MS;
		recorder.departed(arrival);
		now[0] += 3 * MS;

		List<Sample> samples = recorder.drain();

		assertThat(arrival).isEqualTo(1_002 * MS);
		assertThat(samples).containsExactly(new Sample(1_000 * MS, 10 * MS, 0.5, 100.0, 5.0, 0.0));
	}

	@Test
	void drainHandsOverOnlyClosedIntervalsAndEmptiesTheRing() {
		recorder.arrived(1_004 * MS);
		assertThat(recorder.drain(1_009 * MS)).isEmpty();
		assertThat(recorder.drain(1_010 * MS)).singleElement()
			.satisfies(s -> assertThat(s.concurrency()).isEqualTo(0.6));
		assertThat(recorder.drain(1_019 * MS)).isEmpty();
		assertThat(recorder.drain(1_020 * MS)).singleElement()
			.satisfies(s -> assertThat(s.concurrency()).isEqualTo(1.0));
	}

	@Test
	void aFullRingOverwritesTheOldestAndReportsTheLoss() {
		recorder.arrived(1_000 * MS);
		recorder.departed(1_000 * MS, 1_001 * MS); // interval 0: one completion
		recorder.arrived(1_045 * MS); // closes intervals 0..3 into a ring of 3

		List<Sample> samples = recorder.drain(1_050 * MS);

		assertThat(samples).extracting(Sample::startNanos).containsExactly(1_020 * MS, 1_030 * MS, 1_040 * MS);
		assertThat(samples.get(2).concurrency()).isEqualTo(0.5);
		assertThat(dropped).containsExactly(1, 1); // interval 0 when 3 closed, interval 1
													// when 4 closed
	}

	@Test
	void aLongIdleGapSkipsIntervalsNobodyCouldDrain() {
		recorder.arrived(1_000 * MS);

		List<Sample> samples = recorder.drain(2_000 * MS);

		assertThat(samples).extracting(Sample::startNanos).containsExactly(1_970 * MS, 1_980 * MS, 1_990 * MS);
		assertThat(samples).allSatisfy(s -> assertThat(s.concurrency()).isEqualTo(1.0));
		assertThat(dropped.stream().mapToInt(Integer::intValue).sum()).isEqualTo(97);
	}

	@Test
	void aClockThatStepsBackIsHeldAtTheLatestReading() {
		recorder.arrived(1_006 * MS);
		recorder.departed(1_006 * MS, 1_004 * MS);

		List<Sample> samples = recorder.drain(1_010 * MS);

		assertThat(samples).containsExactly(new Sample(1_000 * MS, 10 * MS, 0.0, 100.0, 0.0, 0.0));
	}

	@Test
	void waitingIsIntegratedLikeConcurrency() {
		recorder.waitStarted(1_002 * MS);
		recorder.waitStarted(1_004 * MS);
		recorder.waitEnded(1_008 * MS);

		List<Sample> samples = recorder.drain(1_020 * MS);

		assertThat(samples).extracting(Sample::waiting).containsExactly(1.2, 1.0); // (2
																					// ms
																					// x 1
																					// + 4
																					// ms
																					// x 2
																					// + 2
																					// ms
																					// x
																					// 1)
																					// /
																					// 10
																					// ms
	}

	@Test
	void snapshotKeepsTheLastWindowAndOverwritingWhatWasSeenIsNoLoss() {
		recorder.arrived(1_000 * MS);

		assertThat(recorder.snapshot(1_020 * MS)).extracting(Sample::startNanos)
			.containsExactly(1_000 * MS, 1_010 * MS);
		assertThat(recorder.snapshot(1_040 * MS)).extracting(Sample::startNanos)
			.containsExactly(1_010 * MS, 1_020 * MS, 1_030 * MS);
		assertThat(dropped).isEmpty();
		assertThat(recorder.drain(1_040 * MS)).hasSize(3);
		assertThat(recorder.snapshot(1_040 * MS)).isEmpty();
	}

	@Test
	void recordingAllocatesNothingPerRequest() {
		var threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
		long id = Thread.currentThread().getId();
		ConcurrencyRecorder quiet = Sct.recorder(config, () -> now[0]);
		long t = now[0];
		for (int warm = 0; warm < 20_000; warm++) {
			t += 1_000;
			quiet.arrived(t);
			quiet.waitStarted(t);
			quiet.waitEnded(t);
			quiet.departed(t, t + 500);
		}

		long before = threads.getThreadAllocatedBytes(id);
		for (int i = 0; i < 100_000; i++) { // 100 ms of requests: ten intervals close,
											// the ring wraps
			t += 1_000;
			quiet.arrived(t);
			quiet.waitStarted(t);
			quiet.waitEnded(t);
			quiet.departed(t, t + 500);
		}
		long allocated = threads.getThreadAllocatedBytes(id) - before;

		assertThat(allocated).as("bytes allocated by 400,000 recorder calls").isLessThan(1_024);
	}

}
