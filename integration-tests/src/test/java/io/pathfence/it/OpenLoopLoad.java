package io.pathfence.it;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.HdrHistogram.Histogram;

/**
 * Open-loop load from the test JVM to containers' mapped ports: each stream sends at its
 * fixed rate whether or not earlier requests have answered, and a request's latency
 * counts from its intended send time, so a stall shows in full instead of slowing the
 * load down. Bounded: {@code rate x duration} requests per stream, each with a timeout.
 */
final class OpenLoopLoad {

	/** One stream of requests: {@code ratePerSecond} GETs of {@code uri}. */
	record Stream(String name, URI uri, double ratePerSecond) {
	}

	private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(20);

	private final HttpClient client = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(10))
		.build();

	/** Runs every stream at once for {@code duration} and waits for every answer. */
	Map<String, PathResult> run(Duration duration, Stream... streams) {
		record Send(long dueNanos, Stream stream) {
		}
		List<Send> schedule = new ArrayList<>();
		for (Stream stream : streams) {
			long count = Math.round(stream.ratePerSecond() * duration.toMillis() / 1000.0);
			double intervalNanos = 1e9 / stream.ratePerSecond();
			for (long i = 0; i < count; i++) {
				schedule.add(new Send((long) (i * intervalNanos), stream));
			}
		}
		schedule.sort(Comparator.comparingLong(Send::dueNanos));
		Map<String, PathResult> results = new LinkedHashMap<>();
		for (Stream stream : streams) {
			results.put(stream.name(), new PathResult(stream.name()));
		}
		List<CompletableFuture<?>> answers = new ArrayList<>(schedule.size());
		long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
		for (Send send : schedule) {
			long due = start + send.dueNanos();
			long wait;
			while ((wait = due - System.nanoTime()) > 0) {
				LockSupport.parkNanos(wait);
			}
			PathResult result = results.get(send.stream().name());
			HttpRequest request = HttpRequest.newBuilder(send.stream().uri()).timeout(REQUEST_TIMEOUT).build();
			answers.add(this.client.sendAsync(request, HttpResponse.BodyHandlers.discarding())
				.whenComplete((response, failure) -> result.record(send.dueNanos(), System.nanoTime() - due, response,
						failure)));
		}
		try {
			CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
				.exceptionally((failure) -> null)
				.get(REQUEST_TIMEOUT.toSeconds() + 5, TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			throw new IllegalStateException("the load's answers did not all arrive", ex);
		}
		results.values().forEach((result) -> Figures.print("  " + result));
		return results;
	}

	/**
	 * One request: when it was due, from the start of the load, and its latency from
	 * then.
	 */
	record Sample(Duration due, Duration latency) {

		Duration answered() {
			return this.due.plus(this.latency);
		}

	}

	/**
	 * What one stream saw: answers by kind, and every request's latency from its intended
	 * send time.
	 */
	static final class PathResult {

		private final String name;

		private final Histogram latencyMicros = new Histogram(TimeUnit.MINUTES.toMicros(2), 3);

		private int ok;

		private int rejected;

		private int failed;

		private final Map<String, Integer> rejectedByPath = new LinkedHashMap<>();

		private final List<Sample> samples = new ArrayList<>();

		PathResult(String name) {
			this.name = name;
		}

		synchronized void record(long dueNanos, long latencyNanos, HttpResponse<?> response, Throwable failure) {
			this.samples.add(new Sample(Duration.ofNanos(dueNanos), Duration.ofNanos(latencyNanos)));
			this.latencyMicros.recordValue(Math.min(TimeUnit.NANOSECONDS.toMicros(latencyNanos),
					this.latencyMicros.getHighestTrackableValue()));
			if (failure != null) {
				this.failed++;
			}
			else if (response.statusCode() == 503) {
				this.rejected++;
				response.headers()
					.firstValue("x-pathfence-path")
					.ifPresent((path) -> this.rejectedByPath.merge(path, 1, Integer::sum));
			}
			else if (response.statusCode() / 100 == 2) {
				this.ok++;
			}
			else {
				this.failed++;
			}
		}

		synchronized long count() {
			return this.latencyMicros.getTotalCount();
		}

		synchronized int ok() {
			return this.ok;
		}

		synchronized int rejected() {
			return this.rejected;
		}

		synchronized int failed() {
			return this.failed;
		}

		/** 503s by the path their {@code x-pathfence-path} header named. */
		synchronized Map<String, Integer> rejectedByPath() {
			return Map.copyOf(this.rejectedByPath);
		}

		/** Every request, in the order they were due. */
		synchronized List<Sample> samples() {
			return this.samples.stream().sorted(Comparator.comparing(Sample::due)).toList();
		}

		synchronized Duration percentile(double percentile) {
			return Duration.ofNanos(TimeUnit.MICROSECONDS.toNanos(this.latencyMicros.getValueAtPercentile(percentile)));
		}

		synchronized Duration max() {
			return Duration.ofNanos(TimeUnit.MICROSECONDS.toNanos(this.latencyMicros.getMaxValue()));
		}

		@Override
		public synchronized String toString() {
			return String.format("%-8s sent %4d  ok %4d  503 %4d  failed %3d  p50 %5d ms  p99 %5d ms  max %5d ms",
					this.name, count(), this.ok, this.rejected, this.failed, percentile(50).toMillis(),
					percentile(99).toMillis(), max().toMillis());
		}

	}

}
