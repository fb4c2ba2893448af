package io.pathfence.learning;

import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

import io.pathfence.discovery.Route;

/**
 * What one route's requests called, and the set they agreed on. Each method holds the
 * route's own lock for a few field updates; nothing slow runs under it.
 */
final class RouteState {

	final Route route;

	private long requests;

	private long lastServedNanos;

	private final SortedMap<String, Long> calls = new TreeMap<>();

	private SortedSet<String> confirmed;

	private SortedSet<String> pending;

	private int pendingRequests;

	/** Whether the route called more distinct downstreams than a route may have. */
	private boolean overflowed;

	RouteState(Route route) {
		this.route = route;
	}

	/**
	 * Records a request; returns whether the route moved: to another set, or off every
	 * set because it called more than {@code maxDownstreams} distinct downstreams.
	 */
	synchronized boolean served(Map<String, Integer> called, int confirmations, int maxDownstreams, long now) {
		this.requests++;
		this.lastServedNanos = now;
		if (this.overflowed) {
			return false;
		}
		for (String downstream : called.keySet()) {
			if (!this.calls.containsKey(downstream) && this.calls.size() >= maxDownstreams) {
				this.overflowed = true;
				this.confirmed = null;
				this.pending = null;
				this.pendingRequests = 0;
				return true;
			}
			this.calls.merge(downstream, (long) called.get(downstream), Long::sum);
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
			this.pending = set;
			this.pendingRequests = 1;
		}
		if (this.pendingRequests < confirmations) {
			return false;
		}
		this.confirmed = Collections.unmodifiableSortedSet(set);
		this.pending = null;
		this.pendingRequests = 0;
		return true;
	}

	synchronized SortedSet<String> confirmed() {
		return this.confirmed;
	}

	synchronized boolean overflowed() {
		return this.overflowed;
	}

	synchronized long lastServedNanos() {
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
		return new Snapshot(this.requests, Collections.unmodifiableSortedMap(new TreeMap<>(this.calls)), this.confirmed,
				(this.pending != null) ? Collections.unmodifiableSortedSet(this.pending) : null, this.pendingRequests,
				this.overflowed);
	}

	record Snapshot(long requests, SortedMap<String, Long> calls, SortedSet<String> confirmed,
			SortedSet<String> pending, int pendingRequests, boolean overflowed) {
	}

}
