package io.pathfence.actuate;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.pathfence.core.Admission;
import io.pathfence.core.PathFence;
import io.pathfence.core.Ticket;
import io.pathfence.core.Waiter;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the starter's meters read after the fence's real events: every grant is counted,
 * the wait timer samples the waits there were (granted or timed out) and not the tasks
 * granted at once.
 */
class PathFenceMetricsListenerTests {

	private final MeterRegistry registry = new SimpleMeterRegistry();

	private final PathFence fence = PathFence.builder(2)
		.path("a", 1, 1, Duration.ofMillis(150))
		.localQueue(0, Duration.ZERO)
		.build();

	{
		this.fence.addListener(new PathFenceMetricsListener(this.registry, this.fence.pathNames()));
	}

	@AfterEach
	void close() {
		this.fence.close();
	}

	@Test
	void aGrantAtOnceIsCountedButNotSampledAsAWait() {
		Ticket ticket = this.fence.acquire("a", waiter(null, null));
		assertThat(ticket.admission()).isEqualTo(Admission.GRANTED);
		ticket.release();
		assertThat(granted("a")).isEqualTo(1);
		assertThat(waits("a").count()).isZero();
		assertThat(this.registry.get("pathfence.path.service").tag("path", "a").timer().count()).isEqualTo(1);
	}

	@Test
	void aGrantAfterAWaitIsCountedAndSampled() throws Exception {
		Ticket holder = this.fence.acquire("a", waiter(null, null));
		CountDownLatch granted = new CountDownLatch(1);
		Ticket waiting = this.fence.acquire("a", waiter(granted, null));
		assertThat(waiting.admission()).isEqualTo(Admission.QUEUED);
		Thread.sleep(20);
		holder.release();
		assertThat(granted.await(5, TimeUnit.SECONDS)).isTrue();
		waiting.release();
		assertThat(granted("a")).isEqualTo(2);
		assertThat(waits("a").count()).isEqualTo(1);
		assertThat(waits("a").max(TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(20);
	}

	@Test
	void aTimedOutWaitIsSampledSoTheMaximumShowsIt() throws Exception {
		Ticket holder = this.fence.acquire("a", waiter(null, null));
		CountDownLatch expired = new CountDownLatch(1);
		this.fence.acquire("a", waiter(null, expired));
		assertThat(this.fence.acquire("a", waiter(null, null)).admission()).as("queue full")
			.isEqualTo(Admission.REJECTED);
		assertThat(expired.await(5, TimeUnit.SECONDS)).isTrue();
		holder.release();
		assertThat(waits("a").count()).as("the timed-out wait; the refusal on a full queue waited no time")
			.isEqualTo(1);
		assertThat(waits("a").max(TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(150);
		assertThat(
				this.registry.get("pathfence.path.rejected").tags("path", "a", "reason", "timeout").counter().count())
			.isEqualTo(1);
		assertThat(granted("a")).isEqualTo(1);
	}

	private static Waiter waiter(CountDownLatch onGrant, CountDownLatch onExpiry) {
		return new Waiter() {

			@Override
			public void granted(Ticket ticket) {
				if (onGrant != null) {
					onGrant.countDown();
				}
			}

			@Override
			public void expired(Ticket ticket) {
				if (onExpiry != null) {
					onExpiry.countDown();
				}
			}

		};
	}

	private double granted(String path) {
		return this.registry.get("pathfence.path.granted").tag("path", path).functionCounter().count();
	}

	private Timer waits(String path) {
		return this.registry.get("pathfence.path.wait").tag("path", path).timer();
	}

}
