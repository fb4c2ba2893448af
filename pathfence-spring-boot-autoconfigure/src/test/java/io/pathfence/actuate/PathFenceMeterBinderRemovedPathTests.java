package io.pathfence.actuate;

import java.time.Clock;
import java.time.Duration;
import java.util.List;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.pathfence.core.PathFence;
import io.pathfence.core.Ticket;
import io.pathfence.core.Waiter;
import io.pathfence.sct.SctConfig;
import io.pathfence.tuning.PathTuner;
import io.pathfence.tuning.ReservationStep;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A path removed at run time (a retired learned path) loses the gauges that read the
 * fence and the tuner, so none reads a path that is gone, while the other paths keep
 * theirs; its cumulative timers and counters stay, and its tasks that end after it went
 * still count.
 */
class PathFenceMeterBinderRemovedPathTests {

	private final MeterRegistry registry = new SimpleMeterRegistry();

	private final PathFence fence = PathFence.builder(8).path("payment", 2, 2, Duration.ZERO).build();

	private final PathTuner tuner = new PathTuner(this.fence, List.of("payment"), true,
			SctConfig.builder().interval(Duration.ofMillis(50)).window(Duration.ofSeconds(1)).build(),
			new ReservationStep(1, 4, 2, 1), 1, System::nanoTime, Clock.systemUTC());

	private final Waiter waiter = new Waiter() {
		@Override
		public void granted(Ticket ticket) {
		}

		@Override
		public void expired(Ticket ticket) {
		}
	};

	{
		PathFenceMeterBinder binder = new PathFenceMeterBinder(this.fence, this.tuner);
		this.fence.addListener(this.tuner);
		this.fence.addListener(binder);
		this.fence.addListener(new PathFenceMetricsListener(this.registry, this.fence.pathNames()));
		binder.bindTo(this.registry);
	}

	@AfterEach
	void close() {
		this.fence.close();
	}

	@Test
	void aRemovedPathsGaugesGoAndItsCountersStay() {
		this.fence.addPath("shipping", 2, 2, Duration.ZERO);
		assertThat(meterNames("shipping")).contains("pathfence.path.permits", "pathfence.path.active",
				"pathfence.path.queued", "pathfence.path.borrowed", "pathfence.tuning.recommended",
				"pathfence.tuning.decisions", "pathfence.path.service", "pathfence.path.granted");
		Ticket running = this.fence.acquire("shipping", this.waiter);
		assertThat(gauge("pathfence.path.active", "shipping")).isEqualTo(1.0);
		List<String> paymentMeters = meterNames("payment");

		this.fence.removePath("shipping");

		assertThat(meterNames("shipping")).as("only the cumulative meters stay")
			.containsOnly("pathfence.path.wait", "pathfence.path.service", "pathfence.path.granted",
					"pathfence.path.rejected");
		assertThat(meterNames("payment")).isEqualTo(paymentMeters);
		running.release();
		assertThat(this.registry.get("pathfence.path.service").tag("path", "shipping").timer().count())
			.as("a task that ended after its path went")
			.isEqualTo(1);

		this.fence.addPath("shipping", 2, 2, Duration.ZERO);
		assertThat(gauge("pathfence.path.permits", "shipping")).as("given its gauges again").isEqualTo(2.0);
		assertThat(this.registry.get("pathfence.path.granted").tag("path", "shipping").functionCounter().count())
			.as("continued under the same name")
			.isEqualTo(1.0);
	}

	private List<String> meterNames(String path) {
		return this.registry.getMeters()
			.stream()
			.map(Meter::getId)
			.filter((id) -> path.equals(id.getTag("path")))
			.map(Meter.Id::getName)
			.distinct()
			.sorted()
			.toList();
	}

	private double gauge(String name, String path) {
		return this.registry.get(name).tag("path", path).gauge().value();
	}

}
