package io.pathfence.tuning;

import java.util.ArrayList;
import java.util.List;

import io.pathfence.sct.Sample;

/**
 * Finds the intervals of a window in which the path's downstream stalled (a
 * millibottleneck), so that SCT leaves them out. SCT reads each interval as a point of
 * the path's throughput curve, which holds only while the path works at its own speed;
 * while its downstream stalls, the path sits at its reservation with requests waiting and
 * completes nothing, which would read as throughput falling at high concurrency and cut
 * the reservation for what is the downstream's outage.
 *
 * <p>
 * A stall shows in the response times of the requests it held: they complete when it
 * ends, having been in service far longer than the path's usual. An interval whose mean
 * response time is more than {@value #RESPONSE_TIME_JUMP} times the window's median (over
 * the intervals that completed anything) marks as stalled every interval from that
 * response time before its end up to it, and the intervals just before, in which requests
 * were in service and none completed, as the stall's beginning, and the intervals just
 * after, in which requests still waited, for as long again at most: the backlog the stall
 * left, which a path faster than its load drains in less. A path merely saturated by its
 * load is not marked: its response time grows with the concurrency the reservation
 * admits, which the window's median follows. A window that mixes a light load with a
 * saturation at ten times the knee or more can have its saturated intervals left out too;
 * the decision is then taken on the next window.
 */
final class StalledIntervals {

	/** How far above the window's median a mean response time shows a stall. */
	static final double RESPONSE_TIME_JUMP = 10;

	private StalledIntervals() {
	}

	/** Which of the window's samples, in order, fell in a stall. */
	static boolean[] of(List<Sample> window) {
		boolean[] stalled = new boolean[window.size()];
		double[] responseTimes = window.stream()
			.filter((sample) -> sample.throughput() > 0)
			.mapToDouble(Sample::responseTimeMillis)
			.sorted()
			.toArray();
		if (responseTimes.length == 0) {
			return stalled;
		}
		double usual = median(responseTimes);
		for (int i = 0; i < window.size(); i++) {
			Sample late = window.get(i);
			if (late.throughput() == 0 || !(late.responseTimeMillis() > RESPONSE_TIME_JUMP * usual)) {
				continue;
			}
			long end = late.startNanos() + late.intervalNanos();
			long heldSince = end - (long) (late.responseTimeMillis() * 1e6);
			int first = i;
			for (int j = i; j >= 0 && window.get(j).startNanos() + window.get(j).intervalNanos() > heldSince; j--) {
				stalled[j] = true;
				first = j;
			}
			for (int j = first - 1; j >= 0 && window.get(j).throughput() == 0 && window.get(j).concurrency() > 0; j--) {
				stalled[j] = true;
			}
			int drainFor = i - first + 1;
			for (int j = i + 1; j < window.size() && j <= i + drainFor && window.get(j).waiting() > 0; j++) {
				stalled[j] = true;
			}
		}
		return stalled;
	}

	/** The window without its stalled samples. */
	static List<Sample> leftOut(List<Sample> window, boolean[] stalled) {
		List<Sample> kept = new ArrayList<>(window.size());
		for (int i = 0; i < window.size(); i++) {
			if (!stalled[i]) {
				kept.add(window.get(i));
			}
		}
		return kept;
	}

	static int count(boolean[] stalled) {
		int count = 0;
		for (boolean one : stalled) {
			count += one ? 1 : 0;
		}
		return count;
	}

	private static double median(double[] sorted) {
		int middle = sorted.length / 2;
		return (sorted.length % 2 == 1) ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
	}

}
