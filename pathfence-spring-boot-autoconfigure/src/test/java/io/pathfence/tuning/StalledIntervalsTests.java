package io.pathfence.tuning;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.pathfence.sct.Sample;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which intervals of a window read as a stall of the path's downstream: the path stood
 * still (requests in service, none completed), then its held requests completed late.
 */
class StalledIntervalsTests {

	private static final long INTERVAL = 50_000_000L;

	@Test
	void aDownstreamThatStoodStillThenReleasedItsRequestsIsAStall() {
		List<Sample> window = new ArrayList<>();
		light(window, 20);
		// Six requests held for 400 ms: nothing completes, then all complete at once.
		for (int i = 0; i < 8; i++) {
			window.add(sample(window.size(), 6, 0, 0, 4));
		}
		window.add(sample(window.size(), 6, 120, 420, 4));
		light(window, 20);
		boolean[] stalled = StalledIntervals.of(window);
		assertThat(stalled[25]).isTrue();
		assertThat(stalled[28]).isTrue();
		assertThat(stalled[10]).isFalse();
		assertThat(stalled[40]).isFalse();
	}

	@Test
	void aBurstFarBeyondTheKneeThatKeepsCompletingIsNoStall() {
		List<Sample> window = new ArrayList<>();
		light(window, 30);
		// A burst at forty in flight, ten times the knee: response times twenty times the
		// light load's, yet some requests complete in every interval. It is the path's
		// own
		// saturation, which SCT must see to lower an oversized reservation.
		for (int i = 0; i < 10; i++) {
			window.add(sample(window.size(), 40, 400, 100, 30));
		}
		light(window, 30);
		boolean[] stalled = StalledIntervals.of(window);
		assertThat(StalledIntervals.count(stalled)).isZero();
	}

	private static void light(List<Sample> window, int intervals) {
		for (int i = 0; i < intervals; i++) {
			window.add(sample(window.size(), 1, 20, 5, 0));
		}
	}

	private static Sample sample(int index, double concurrency, double throughput, double responseTimeMillis,
			double waiting) {
		return new Sample(index * INTERVAL, INTERVAL, concurrency, throughput, responseTimeMillis, waiting);
	}

}
