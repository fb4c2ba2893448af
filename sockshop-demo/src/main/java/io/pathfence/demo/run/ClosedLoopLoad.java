package io.pathfence.demo.run;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

import io.pathfence.testsupport.load.Outcome;

/**
 * A closed-loop load generator for the maximum throughput (the paper's Fig. 12): a fixed
 * number of users, each sending its next request as soon as the previous one is answered,
 * no think time, the path of each request drawn in proportion to the paths' base rates. A
 * user told 503 waits the second that the answer's {@code Retry-After} asks for, as a
 * well-behaved client does, instead of hammering the service with requests it has just
 * refused. Throughput counts the requests answered 2xx during the measured time, after a
 * ramp that is not counted.
 */
public final class ClosedLoopLoad {

	/** The services' {@code Retry-After} with a 503. */
	private static final Duration RETRY_AFTER = Duration.ofSeconds(1);

	private final HttpSender sender;

	public ClosedLoopLoad(Duration requestTimeout) {
		this.sender = new HttpSender(requestTimeout);
	}

	/**
	 * One kind of request and its share of the mix.
	 *
	 * @param path the execution path
	 * @param method the HTTP method
	 * @param uri where it is sent
	 * @param weight its share, e.g. its base rate
	 */
	public record Request(String path, String method, java.net.URI uri, double weight) {
	}

	/** Hears of every request that ended, in the ramp too, on the user's thread. */
	@FunctionalInterface
	public interface Listener {

		/** A request ended; {@code ok} if it was answered 2xx. */
		void ended(Request request, boolean ok);

	}

	Throughput run(List<Request> mix, int users, Duration ramp, Duration measured, long seed)
			throws InterruptedException {
		return run(mix, users, ramp, measured, seed, (request, ok) -> {
		});
	}

	/**
	 * Runs {@code users} users for the ramp and the measured time, telling the listener
	 * of each request that ends.
	 */
	public Throughput run(List<Request> mix, int users, Duration ramp, Duration measured, long seed, Listener listener)
			throws InterruptedException {
		double total = mix.stream().mapToDouble(Request::weight).sum();
		AtomicLong ok = new AtomicLong();
		AtomicLong answered = new AtomicLong();
		long start = System.nanoTime();
		long measureFrom = start + ramp.toNanos();
		long end = measureFrom + measured.toNanos();
		List<Thread> threads = new ArrayList<>();
		for (int user = 0; user < users; user++) {
			SplittableRandom random = new SplittableRandom(seed + user);
			threads.add(Thread.ofVirtual().name("user-" + user).start(() -> {
				while (System.nanoTime() < end) {
					Request request = pick(mix, random.nextDouble() * total);
					Outcome outcome = this.sender.send(request.method(), request.uri(), request.path());
					listener.ended(request, outcome == Outcome.OK);
					long now = System.nanoTime();
					if (now >= measureFrom && now < end) {
						answered.incrementAndGet();
						if (outcome == Outcome.OK) {
							ok.incrementAndGet();
						}
					}
					if (outcome == Outcome.REJECTED) {
						try {
							Thread.sleep(RETRY_AFTER);
						}
						catch (InterruptedException ex) {
							return;
						}
					}
				}
			}));
		}
		for (Thread thread : threads) {
			thread.join();
		}
		double seconds = measured.toNanos() / 1e9;
		return new Throughput(ok.get() / seconds, answered.get() / seconds);
	}

	private static Request pick(List<Request> mix, double at) {
		double sum = 0;
		for (Request request : mix) {
			sum += request.weight();
			if (at < sum) {
				return request;
			}
		}
		return mix.get(mix.size() - 1);
	}

}
