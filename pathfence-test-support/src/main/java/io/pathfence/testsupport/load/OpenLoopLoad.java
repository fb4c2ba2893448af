package io.pathfence.testsupport.load;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * An open-loop load generator: each stream's requests are sent at their due times whether
 * or not earlier ones were answered, and each is timed from its due time, so a server
 * that stalls cannot slow the load down and hide its own stall (no coordinated omission).
 * A run is bounded in time, and in requests out at once by {@code maxInFlight}. It sends
 * to loopback only, unless the caller {@linkplain #allowingRemoteTargets() allows
 * others}: a test's load must never reach a machine that did not ask for it.
 */
public final class OpenLoopLoad {

	/** The guard on requests out at once that a load has unless told otherwise. */
	public static final int DEFAULT_MAX_IN_FLIGHT = 4000;

	/**
	 * One stream of requests.
	 *
	 * @param path the execution path the requests belong to
	 * @param method the HTTP method
	 * @param uri where they are sent
	 * @param arrivals when they are due
	 */
	public record Stream(String path, String method, URI uri, Arrivals arrivals) {

		public Stream {
			Objects.requireNonNull(path, "path");
			Objects.requireNonNull(method, "method");
			Objects.requireNonNull(uri, "uri");
			Objects.requireNonNull(arrivals, "arrivals");
		}

		/** GETs of {@code uri} at a fixed rate. */
		public static Stream get(String path, URI uri, double perSecond) {
			return new Stream(path, "GET", uri, Arrivals.fixed(perSecond));
		}

	}

	private final Sender sender;

	private final int maxInFlight;

	private final boolean remoteTargets;

	private final InFlight inFlight = new InFlight();

	private final AtomicLong sent = new AtomicLong();

	public OpenLoopLoad(Sender sender) {
		this(sender, DEFAULT_MAX_IN_FLIGHT, false);
	}

	private OpenLoopLoad(Sender sender, int maxInFlight, boolean remoteTargets) {
		this.sender = Objects.requireNonNull(sender, "sender");
		if (maxInFlight < 1) {
			throw new IllegalArgumentException("maxInFlight must be at least 1, not " + maxInFlight);
		}
		this.maxInFlight = maxInFlight;
		this.remoteTargets = remoteTargets;
	}

	/**
	 * The same load with another guard. A request beyond it is not sent and is recorded
	 * as a timeout of the sender's full request timeout: what its user would have waited
	 * before giving up. Recording it at the moment it was refused would pull the
	 * percentiles down just when the server is at its worst.
	 */
	public OpenLoopLoad withMaxInFlight(int maxInFlight) {
		return new OpenLoopLoad(this.sender, maxInFlight, this.remoteTargets);
	}

	/**
	 * The same load, free to send to hosts other than loopback: for a demo pointed at an
	 * application that runs elsewhere on purpose.
	 */
	public OpenLoopLoad allowingRemoteTargets() {
		return new OpenLoopLoad(this.sender, this.maxInFlight, true);
	}

	/**
	 * Sends the streams for {@code length}, then waits up to {@code drain} for the
	 * answers still out.
	 * @param streams what to send
	 * @param length how long requests are sent
	 * @param seed the seed of the random arrivals; fixed arrivals use none
	 * @param drain how long to wait for the last answers
	 * @param recorder where each request is reported once answered
	 * @return how many requests were still unanswered when the drain ended
	 * @throws InterruptedException if interrupted while sending or draining
	 */
	public int run(List<Stream> streams, Duration length, long seed, Duration drain, Recorder recorder)
			throws InterruptedException {
		if (!this.remoteTargets) {
			streams.forEach((stream) -> requireLoopback(stream.uri()));
		}
		SplittableRandom random = new SplittableRandom(seed);
		long start = System.nanoTime();
		long end = start + length.toNanos();
		record Next(int stream, long atNanos) {
		}
		PriorityQueue<Next> queue = new PriorityQueue<>((a, b) -> Long.compare(a.atNanos, b.atNanos));
		for (int i = 0; i < streams.size(); i++) {
			Arrivals arrivals = streams.get(i).arrivals();
			if (arrivals.active()) {
				queue.add(new Next(i, start + arrivals.firstNanos(random)));
			}
		}
		while (!queue.isEmpty()) {
			Next next = queue.poll();
			if (next.atNanos >= end) {
				continue;
			}
			Stream stream = streams.get(next.stream);
			queue.add(new Next(next.stream, next.atNanos + stream.arrivals().gapNanos(random)));
			double atSeconds = (next.atNanos - start) / 1e9;
			if (!stream.arrivals().keep(random, atSeconds)) {
				continue;
			}
			for (long wait = next.atNanos - System.nanoTime(); wait > 0; wait = next.atNanos - System.nanoTime()) {
				LockSupport.parkNanos(wait);
			}
			if (Thread.interrupted()) {
				throw new InterruptedException();
			}
			send(stream, next.atNanos, atSeconds, recorder);
		}
		return this.inFlight.awaitNone(drain);
	}

	private void send(Stream stream, long dueNanos, double dueSeconds, Recorder recorder) {
		this.sent.incrementAndGet();
		if (!this.inFlight.tryAdd(this.maxInFlight)) {
			recorder.record(stream.path(), dueSeconds,
					TimeUnit.NANOSECONDS.toMicros(this.sender.requestTimeout().toNanos()), Answer.NONE);
			return;
		}
		this.sender.send(stream).whenComplete((answer, failure) -> {
			long latencyMicros = (System.nanoTime() - dueNanos) / 1000;
			try {
				recorder.record(stream.path(), dueSeconds, latencyMicros, (failure != null) ? Answer.NONE : answer);
			}
			finally {
				this.inFlight.remove();
			}
		});
	}

	/** Requests sent, or refused by the guard, so far. */
	public long sent() {
		return this.sent.get();
	}

	/** Requests out now. */
	public int inFlight() {
		return this.inFlight.count();
	}

	private static void requireLoopback(URI uri) {
		try {
			if (uri.getHost() != null && InetAddress.getByName(uri.getHost()).isLoopbackAddress()) {
				return;
			}
		}
		catch (UnknownHostException ex) {
			// Not loopback either.
		}
		throw new IllegalArgumentException("The load sends to loopback only, not to " + uri);
	}

}
