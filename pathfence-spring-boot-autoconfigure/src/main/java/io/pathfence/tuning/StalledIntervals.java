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
 * the intervals that completed anything), and before which the path stood still for at
 * least an interval (requests in service, none completed), marks as stalled every
 * interval from that response time before its end up to it, and the intervals just
 * before, in which requests were in service and none completed, as the stall's beginning,
 * and the intervals just after, in which requests still waited, for as long again at
 * most: the backlog the stall left, which a path faster than its load drains in less. A
 * path merely saturated by its load is not marked: however long its requests take, some
 * complete in every interval.
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
			while (first > 0
					&& window.get(first - 1).startNanos() + window.get(first - 1).intervalNanos() > heldSince) {
				first--;
			}
			int leadIn = first;
			while (leadIn > 0 && silent(window.get(leadIn - 1))) {
				leadIn--;
			}
			if (!anySilent(window, leadIn, i)) {
				// Requests in service completed all along: slow, not stopped. A path
				// saturated far beyond its knee looks like this, and must stay in.
				continue;
			}
			int drainFor = i - first + 1;
			for (int j = leadIn; j <= i; j++) {
				stalled[j] = true;
			}
			for (int j = i + 1; j < window.size() && j <= i + drainFor && window.get(j).waiting() > 0; j++) {
				stalled[j] = true;
			}
		}
		return stalled;
	}

	/** Requests were in service and none completed: the path stood still. */
	private static boolean silent(Sample sample) {
		return sample.throughput() == 0 && sample.concurrency() > 0;
	}

	private static boolean anySilent(List<Sample> window, int from, int to) {
		for (int j = from; j < to; j++) {
			if (silent(window.get(j))) {
				return true;
			}
		}
		return false;
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
