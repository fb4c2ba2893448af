package io.pathfence.isolation;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;

/**
 * An open-loop load of loopback HTTP requests: each stream sends on its own schedule
 * whatever the responses do, and a request's latency counts from when it was due to be
 * sent, so a server that stalls cannot slow the load down and hide its own stall. Bounded
 * by count and time.
 */
final class OpenLoopLoad {

	/**
	 * One stream of requests: {@code ratePerSecond} GETs of {@code uri} for the length of
	 * the run.
	 */
	record Stream(String name, URI uri, int ratePerSecond) {
	}

	/** What one stream saw. */
	static final class Outcome {

		final Histogram ok = new Histogram(60_000_000_000L, 3);

		final Histogram rejected = new Histogram(60_000_000_000L, 3);

		/** 503 latencies by the reason the problem body gives: queue-full or timeout. */
		final Map<String, Histogram> rejectedByReason = new ConcurrentHashMap<>();

		int errors;

		int sent;

		synchronized void record(int status, String body, long latencyNanos) {
			if (status == 200) {
				this.ok.recordValue(latencyNanos);
			}
			else if (status == 503) {
				this.rejected.recordValue(latencyNanos);
				String reason = body.contains("\"reason\":\"timeout\"") ? "timeout" : "queue-full";
				this.rejectedByReason.computeIfAbsent(reason, (key) -> new Histogram(60_000_000_000L, 3))
					.recordValue(latencyNanos);
			}
			else {
				this.errors++;
			}
		}

		synchronized void error() {
			this.errors++;
		}

		synchronized double okMillisAt(double percentile) {
			return this.ok.getValueAtPercentile(percentile) / 1e6;
		}

		synchronized long rejectedFor(String reason) {
			Histogram histogram = this.rejectedByReason.get(reason);
			return (histogram != null) ? histogram.getTotalCount() : 0;
		}

		synchronized double rejectedMillisAt(String reason, double percentile) {
			Histogram histogram = this.rejectedByReason.get(reason);
			return (histogram != null) ? histogram.getValueAtPercentile(percentile) / 1e6 : 0;
		}

		@Override
		public synchronized String toString() {
			return String.format(
					"sent=%d ok=%d (p50=%.1fms p99=%.1fms max=%.1fms) 503 queue-full=%d (p99=%.1fms) "
							+ "503 timeout=%d (p99=%.1fms) errors=%d",
					this.sent, this.ok.getTotalCount(), okMillisAt(50), okMillisAt(99), this.ok.getMaxValue() / 1e6,
					rejectedFor("queue-full"), rejectedMillisAt("queue-full", 99), rejectedFor("timeout"),
					rejectedMillisAt("timeout", 99), this.errors);
		}

	}

	private OpenLoopLoad() {
	}

	/**
	 * Runs every stream for {@code length}, then waits up to {@code drain} for the last
	 * answers.
	 */
	static Map<String, Outcome> run(List<Stream> streams, Duration length, Duration drain) throws InterruptedException {
		java.util.concurrent.ExecutorService responses = Executors.newFixedThreadPool(4);
		HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).executor(responses).build();
		ScheduledExecutorService sender = Executors.newSingleThreadScheduledExecutor();
		Map<String, Outcome> outcomes = new ConcurrentHashMap<>();
		List<CompletableFuture<?>> inFlight = java.util.Collections.synchronizedList(new ArrayList<>());
		long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
		for (Stream stream : streams) {
			Outcome outcome = new Outcome();
			outcomes.put(stream.name(), outcome);
			long periodNanos = TimeUnit.SECONDS.toNanos(1) / stream.ratePerSecond();
			long count = length.toNanos() / periodNanos;
			for (long i = 0; i < count; i++) {
				long due = start + i * periodNanos;
				sender.schedule(() -> {
					HttpRequest request = HttpRequest.newBuilder(stream.uri()).timeout(Duration.ofSeconds(20)).build();
					synchronized (outcome) {
						outcome.sent++;
					}
					inFlight.add(client.sendAsync(request, HttpResponse.BodyHandlers.ofString())
						.whenComplete((response, failure) -> {
							long latency = System.nanoTime() - due;
							if (failure != null) {
								outcome.error();
							}
							else {
								outcome.record(response.statusCode(), response.body(), latency);
							}
						}));
				}, due - System.nanoTime(), TimeUnit.NANOSECONDS);
			}
		}
		sender.shutdown();
		sender.awaitTermination(length.toMillis() + 5_000, TimeUnit.MILLISECONDS);
		long deadline = System.nanoTime() + drain.toNanos();
		for (CompletableFuture<?> future : List.copyOf(inFlight)) {
			long left = deadline - System.nanoTime();
			try {
				future.get(Math.max(1, left), TimeUnit.NANOSECONDS);
			}
			catch (Exception ex) {
				// Counted as an error by the stream itself, or cut off by the drain
				// limit.
			}
		}
		responses.shutdownNow();
		return outcomes;
	}

}
