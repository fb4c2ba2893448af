package io.pathfence.sct.internal;

import io.pathfence.sct.RequestRecord;
import io.pathfence.sct.Sample;
import io.pathfence.sct.SctConfig;
import io.pathfence.sct.SctMetrics;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Offline: feeds finished requests, path by path, through an {@link IntervalRecorder} in
 * time order, so the offline samples are computed by exactly the code that computes them
 * online. At equal timestamps arrivals go first (a request that takes no time must arrive
 * before it departs); the order of events at one instant changes no integral.
 */
public final class RecordReplay {

	/**
	 * The most intervals one path's records may span. Replay holds them all at once, in a
	 * ring of five longs and a sample each, about 110 bytes an interval: 10 million
	 * (almost six days of 50 ms samples) is a gigabyte.
	 */
	public static final int MAX_INTERVALS = 10_000_000;

	private RecordReplay() {
	}

	/**
	 * @throws IllegalArgumentException if one path's records span more than
	 * {@link #MAX_INTERVALS} intervals
	 */
	public static Map<String, List<Sample>> samplesByPath(List<RequestRecord> records, SctConfig config) {
		Map<String, List<RequestRecord>> byPath = new LinkedHashMap<>();
		for (RequestRecord r : records) {
			byPath.computeIfAbsent(r.path(), p -> new ArrayList<>()).add(r);
		}
		Map<String, List<Sample>> out = new LinkedHashMap<>();
		byPath.forEach((path, list) -> out.put(path, replay(path, list, config.interval().toNanos())));
		return out;
	}

	static List<Sample> replay(String path, List<RequestRecord> records, long intervalNanos) {
		int n = records.size();
		// event = time * 2 + kind would overflow for large times; sort indices instead.
		long[] times = new long[2 * n];
		long minArrival = Long.MAX_VALUE;
		long maxDeparture = Long.MIN_VALUE;
		for (int i = 0; i < n; i++) {
			RequestRecord r = records.get(i);
			times[2 * i] = r.arrivalNanos();
			times[2 * i + 1] = r.departureNanos();
			minArrival = Math.min(minArrival, r.arrivalNanos());
			maxDeparture = Math.max(maxDeparture, r.departureNanos());
		}
		Integer[] order = new Integer[2 * n];
		for (int i = 0; i < order.length; i++) {
			order[i] = i;
		}
		Arrays.sort(order, (a, b) -> {
			int byTime = Long.compare(times[a], times[b]);
			if (byTime != 0) {
				return byTime;
			}
			return Integer.compare(a % 2, b % 2); // arrivals (even) first, so a
													// zero-length request nets to 0
		});
		long origin = minArrival - Math.floorMod(minArrival, intervalNanos);
		long end = maxDeparture - Math.floorMod(maxDeparture, intervalNanos) + intervalNanos;
		long intervals = (end - origin) / intervalNanos;
		if (intervals > MAX_INTERVALS) {
			throw new IllegalArgumentException("the records of path '" + path + "' span " + intervals + " intervals of "
					+ intervalNanos + " ns; at most " + MAX_INTERVALS + " are replayed at once");
		}
		IntervalRecorder recorder = new IntervalRecorder(intervalNanos, (int) intervals, () -> {
			throw new IllegalStateException("replay passes every timestamp explicitly");
		}, origin, SctMetrics.NONE);
		for (Integer e : order) {
			RequestRecord r = records.get(e / 2);
			if (e % 2 == 0) {
				recorder.arrived(r.arrivalNanos());
			}
			else {
				recorder.departed(r.arrivalNanos(), r.departureNanos());
			}
		}
		return recorder.drain(end);
	}

}
