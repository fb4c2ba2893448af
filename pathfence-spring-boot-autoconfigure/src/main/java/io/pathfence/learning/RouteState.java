package io.pathfence.learning;

import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import io.pathfence.discovery.Route;

/**
 * What one route's requests called, and the set they agreed on.
 * <p>
 * Almost every request of a busy route calls the set it already confirmed, with nothing
 * pending: such a request only adds to counters, without the route's lock, so that the
 * threads serving one route do not queue on it (and spin for it) once per request. Any
 * other request, one that may move the route, takes the lock for a few field updates;
 * nothing slow runs under it. A request counted without the lock is one that read no
 * pending set and then the set it called as the confirmed one, so it is ordered before
 * any request that starts a pending set, as if it had been served first.
 */
final class RouteState {

	/**
	 * How stale the time the route was last served may be. Written on every request, the
	 * field's cache line would move between cores on every request; routes retire after
	 * far longer idle times than this.
	 */
	private static final long LAST_SERVED_RESOLUTION_NANOS = 1_000_000;

	/** {@link #lastServedNanos} before the first request (a clock may read any value). */
	private static final long NEVER = Long.MIN_VALUE;

	final Route route;

	private final LongAdder requests = new LongAdder();

	private volatile long lastServedNanos = NEVER;

	/**
	 * Calls per downstream; downstreams are only added under the lock, so the cap holds,
	 * and never removed, so a confirmed set's downstreams are always here.
	 */
	private final Map<String, LongAdder> calls = new ConcurrentHashMap<>();

	private volatile SortedSet<String> confirmed;

	private volatile SortedSet<String> pending;

	private int pendingRequests;

	/** Whether the route called more distinct downstreams than a route may have. */
	private volatile boolean overflowed;

	RouteState(Route route) {
		this.route = route;
	}

	/**
	 * Records a request; returns whether the route moved: to another set, or off every
	 * set because it called more than {@code maxDownstreams} distinct downstreams.
	 */
	boolean served(Map<String, Integer> called, int confirmations, int maxDownstreams, long now) {
		if (this.overflowed) {
			count(now);
			return false;
		}
		// Pending first: a confirmation writes the confirmed set before it clears the
		// pending one, so a request that reads no pending set then reads the set that was
		// confirmed when it looked, never one confirmed since.
		boolean nothingPending = this.pending == null;
		SortedSet<String> settled = this.confirmed;
		if (nothingPending && settled != null && settled.equals(called.keySet())) {
			called.forEach((downstream, times) -> this.calls.get(downstream).add(times));
			count(now);
			return false;
		}
		synchronized (this) {
			return servedMoving(called, confirmations, maxDownstreams, now);
		}
	}

	private boolean servedMoving(Map<String, Integer> called, int confirmations, int maxDownstreams, long now) {
		count(now);
		if (this.overflowed) {
			return false;
		}
		for (Map.Entry<String, Integer> call : called.entrySet()) {
			String downstream = call.getKey();
			if (!this.calls.containsKey(downstream) && this.calls.size() >= maxDownstreams) {
				this.overflowed = true;
				this.confirmed = null;
				this.pending = null;
				this.pendingRequests = 0;
				return true;
			}
			this.calls.computeIfAbsent(downstream, (d) -> new LongAdder()).add(call.getValue());
		}
		SortedSet<String> set = new TreeSet<>(called.keySet());
		if (set.equals(this.confirmed)) {
			this.pending = null;
			this.pendingRequests = 0;
			return false;
		}
		if (set.equals(this.pending)) {
			this.pendingRequests++;
		}
		else {
			this.pending = Collections.unmodifiableSortedSet(set);
			this.pendingRequests = 1;
		}
		if (this.pendingRequests < confirmations) {
			return false;
		}
		this.confirmed = this.pending;
		this.pending = null;
		this.pendingRequests = 0;
		return true;
	}

	private void count(long now) {
		this.requests.increment();
		long last = this.lastServedNanos;
		if (last == NEVER || now - last >= LAST_SERVED_RESOLUTION_NANOS) {
			this.lastServedNanos = now;
		}
	}

	SortedSet<String> confirmed() {
		return this.confirmed;
	}

	boolean overflowed() {
		return this.overflowed;
	}

	long lastServedNanos() {
		return this.lastServedNanos;
	}

	/**
	 * The route's path was retired while the route still confirmed {@code set}: it learns
	 * afresh, so its next requests confirm a set again before it is placed.
	 */
	synchronized void forget(SortedSet<String> set) {
		if (set.equals(this.confirmed)) {
			this.confirmed = null;
		}
	}

	synchronized Snapshot snapshot() {
		SortedMap<String, Long> counted = new TreeMap<>();
		this.calls.forEach((downstream, times) -> counted.put(downstream, times.sum()));
		return new Snapshot(this.requests.sum(), Collections.unmodifiableSortedMap(counted), this.confirmed,
				this.pending, this.pendingRequests, this.overflowed);
	}

	record Snapshot(long requests, SortedMap<String, Long> calls, SortedSet<String> confirmed,
			SortedSet<String> pending, int pendingRequests, boolean overflowed) {
	}

}
