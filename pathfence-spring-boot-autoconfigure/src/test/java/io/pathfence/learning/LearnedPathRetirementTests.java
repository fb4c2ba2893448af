package io.pathfence.learning;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;

import io.pathfence.core.Admission;
import io.pathfence.core.PathFence;
import io.pathfence.core.PathFenceListener;
import io.pathfence.core.PathFigures;
import io.pathfence.core.Ticket;
import io.pathfence.core.Waiter;
import io.pathfence.web.FencedHandlers;
import io.pathfence.web.RequestClassifier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A learned path none of whose routes was served for {@code retire-after} is retired: its
 * reservation is removed, its permits go back to local with none lost, tasks waiting for
 * it are told rather than left waiting, and its quiet routes learn afresh.
 */
class LearnedPathRetirementTests {

	private static final Duration RETIRE_AFTER = Duration.ofMinutes(1);

	private final PathFence fence = PathFence.builder(10).path("payment", 2, 5, Duration.ZERO).build();

	private final AtomicLong clock = new AtomicLong();

	private final LearnedPaths learned = new LearnedPaths(this.fence, true,
			new LearnedPaths.Settings(16, 256, 16, 2, 2, 5, Duration.ZERO, 1, RETIRE_AFTER), this.clock::get,
			Runnable::run);

	private final List<Ticket> told = new CopyOnWriteArrayList<>();

	private final Waiter waiter = new Waiter() {
		@Override
		public void granted(Ticket ticket) {
			LearnedPathRetirementTests.this.told.add(ticket);
			ticket.release();
		}

		@Override
		public void expired(Ticket ticket) {
			LearnedPathRetirementTests.this.told.add(ticket);
		}
	};

	private void serve(String pattern, int times, String... downstreams) {
		Map<String, Integer> calls = new java.util.LinkedHashMap<>();
		for (String downstream : downstreams) {
			calls.put(downstream, 1);
		}
		for (int i = 0; i < times; i++) {
			this.learned.served("GET", pattern, calls);
		}
	}

	private void later(Duration by) {
		this.clock.addAndGet(by.toNanos());
	}

	private int permitsInAll() {
		return this.fence.figures().stream().mapToInt(PathFigures::permits).sum();
	}

	@Test
	void aPathWhoseRoutesMovedAwayIsRetiredOnceItsTasksEndAndItsPermitsGoBackToLocal() {
		serve("/orders", 2, "shipping");
		assertThat(this.fence.figures("shipping").permits()).isEqualTo(2);
		assertThat(this.fence.figures(PathFence.LOCAL).permits()).isEqualTo(6);
		Ticket first = this.fence.acquire("shipping", this.waiter);
		Ticket second = this.fence.acquire("shipping", this.waiter);
		Ticket waiting = this.fence.acquire("shipping", this.waiter);
		assertThat(waiting.admission()).isEqualTo(Admission.QUEUED);
		serve("/orders", 2);
		assertThat(this.learned.pathOf("GET", "/orders")).isNull();
		later(RETIRE_AFTER);
		this.learned.place();
		assertThat(this.fence.hasPath("shipping")).as("kept while its tasks run and wait").isTrue();
		assertThat(this.told).isEmpty();
		first.release();
		// The waiter is granted, runs and releases its permit.
		assertThat(this.told).containsExactly(waiting);
		second.release();
		later(RETIRE_AFTER.minusSeconds(1));
		this.learned.place();
		assertThat(this.fence.hasPath("shipping")).as("kept until retire-after has passed idle").isTrue();
		later(Duration.ofSeconds(1));
		this.learned.place();
		assertThat(this.fence.hasPath("shipping")).isFalse();
		assertThat(this.fence.figures(PathFence.LOCAL).permits()).isEqualTo(8);
		assertThat(permitsInAll()).isEqualTo(10);
		assertThat(this.fence.figures().stream().mapToInt(PathFigures::active).sum()).isZero();
		assertThat(this.learned.report().paths()).isEmpty();
		this.fence.close();
	}

	/**
	 * A stall longer than retire-after: no request of the path completes, so none is
	 * served, but its tasks hold its permits and wait for them. Retiring the path would
	 * send its routes to local, where the stall would take the local threads.
	 */
	@Test
	void aPathWhoseTasksRunAndWaitLongerThanRetireAfterIsKept() {
		serve("/orders", 2, "shipping");
		Ticket first = this.fence.acquire("shipping", this.waiter);
		Ticket second = this.fence.acquire("shipping", this.waiter);
		Ticket waiting = this.fence.acquire("shipping", this.waiter);
		assertThat(waiting.admission()).isEqualTo(Admission.QUEUED);
		later(RETIRE_AFTER.multipliedBy(3));
		this.learned.place();
		assertThat(this.fence.hasPath("shipping")).isTrue();
		assertThat(this.told).as("the waiter is not turned away").isEmpty();
		assertThat(this.learned.pathOf("GET", "/orders")).isEqualTo("shipping");
		first.release();
		second.release();
		assertThat(this.told).containsExactly(waiting);
		assertThat(permitsInAll()).isEqualTo(10);
		this.fence.close();
	}

	/**
	 * Requests that waited for their permits are never served as far as learning goes
	 * (their calls are not seen), yet they were classified to the path: that is a use.
	 */
	@Test
	void aPathWhoseRequestsAreClassifiedButNotServedIsKept() {
		serve("/orders", 2, "shipping");
		later(RETIRE_AFTER.dividedBy(2));
		assertThat(this.learned.pathOf("GET", "/orders")).isEqualTo("shipping");
		later(RETIRE_AFTER.dividedBy(2).plusSeconds(1));
		this.learned.place();
		assertThat(this.fence.hasPath("shipping")).as("classified within retire-after").isTrue();
		assertThat(this.learned.report().paths()).extracting(LearnedPaths.PathReport::name).containsExactly("shipping");
		later(RETIRE_AFTER);
		this.learned.place();
		assertThat(this.fence.hasPath("shipping")).as("neither classified nor served since").isFalse();
	}

	/**
	 * The placement without the retired path is published before its reservation goes, so
	 * a request classified meanwhile is not sent to a path that no longer exists.
	 */
	@Test
	void aRetiredPathsRoutesAreClassifiedLocalBeforeItsReservationIsRemoved() {
		List<String> classifiedAtRemoval = new CopyOnWriteArrayList<>();
		this.fence.addListener(new PathFenceListener() {
			@Override
			public void onPathRemoved(String path, int permits) {
				classifiedAtRemoval
					.add(String.valueOf(LearnedPathRetirementTests.this.learned.pathOf("GET", "/orders")));
			}
		});
		serve("/orders", 2, "shipping");
		later(RETIRE_AFTER);
		this.learned.place();
		assertThat(this.fence.hasPath("shipping")).isFalse();
		assertThat(classifiedAtRemoval).containsExactly("null");
	}

	/**
	 * The classifier a request goes through: its learned path while the path lives, local
	 * once it is retired, and the request is admitted on local's permits.
	 */
	@Test
	void aRetiredPathsRoutesAreClassifiedLocalAndAdmitted() {
		RequestClassifier classifier = new RequestClassifier(List.of(), Map.of(), () -> List.of(Map
			.of(RequestMappingInfo.paths("/orders").methods(RequestMethod.GET).build(), FencedHandlers.UNFENCED)),
				this.learned);
		serve("/orders", 2, "shipping");
		assertThat(classifier.classify(new MockHttpServletRequest("GET", "/orders"))).isEqualTo("shipping");
		later(RETIRE_AFTER);
		this.learned.place();
		later(RETIRE_AFTER);
		this.learned.place();
		assertThat(this.fence.hasPath("shipping")).isFalse();
		String path = classifier.classify(new MockHttpServletRequest("GET", "/orders"));
		assertThat(path).isEqualTo(PathFence.LOCAL);
		Ticket ticket = this.fence.acquire(path, this.waiter);
		assertThat(ticket.admission()).isEqualTo(Admission.GRANTED);
		ticket.release();
	}

	/**
	 * A request classified to the path just before the pass that retires it takes a
	 * permit after the pass found the path idle and before its reservation goes, so that
	 * removal is refused; a later pass removes it once the request is done, and its
	 * permits go back to local. The fence's clock, read as the removal starts, is where
	 * the request comes in, so the interleaving is the same on every run.
	 */
	@Test
	void aRetiredPathWhoseRemovalWasRefusedIsRemovedOnALaterPass() {
		AtomicReference<Runnable> atNextFenceClockRead = new AtomicReference<>();
		PathFence fence = PathFence.builder(10).path("payment", 2, 5, Duration.ZERO).nanoClock(() -> {
			Runnable late = atNextFenceClockRead.getAndSet(null);
			if (late != null) {
				late.run();
			}
			return this.clock.get();
		}).build();
		// Heard, the fence reads its clock for every change, a removal included.
		fence.addListener(new PathFenceListener() {
		});
		LearnedPaths learned = new LearnedPaths(fence, true,
				new LearnedPaths.Settings(16, 256, 16, 2, 2, 5, Duration.ZERO, 1, RETIRE_AFTER), this.clock::get,
				Runnable::run);
		for (int i = 0; i < 2; i++) {
			learned.served("GET", "/orders", Map.of("shipping", 1));
		}
		assertThat(fence.figures(PathFence.LOCAL).permits()).isEqualTo(6);
		later(RETIRE_AFTER);
		List<Ticket> lateRequests = new CopyOnWriteArrayList<>();
		atNextFenceClockRead.set(() -> lateRequests.add(fence.acquire("shipping", this.waiter)));

		learned.place();

		assertThat(lateRequests).singleElement()
			.extracting(Ticket::admission)
			.as("the late request took a permit as the removal started")
			.isEqualTo(Admission.GRANTED);
		assertThat(learned.pathOf("GET", "/orders")).as("retired").isNull();
		assertThat(fence.hasPath("shipping")).as("removal refused while the late request runs").isTrue();
		lateRequests.get(0).release();
		learned.place();
		assertThat(fence.hasPath("shipping")).as("removed on the next pass").isFalse();
		assertThat(fence.figures(PathFence.LOCAL).permits()).isEqualTo(8);
		assertThat(fence.figures().stream().mapToInt(PathFigures::permits).sum()).isEqualTo(10);
		learned.close();
		fence.close();
	}

	@Test
	void aQuietRoutesPathIsRetiredAndTheRouteLearnsAfreshUnderTheSameName() {
		serve("/orders", 2, "shipping");
		// Read from the report: classifying a request would count as a use.
		assertThat(this.learned.report().routes()).extracting(LearnedPaths.RouteReport::path)
			.containsExactly("shipping");
		later(RETIRE_AFTER);
		this.learned.place();
		assertThat(this.learned.pathOf("GET", "/orders")).isNull();
		assertThat(this.fence.pathNames()).containsExactly("payment", PathFence.LOCAL);
		serve("/orders", 1, "shipping");
		assertThat(this.learned.pathOf("GET", "/orders")).as("one request confirms nothing").isNull();
		serve("/orders", 1, "shipping");
		assertThat(this.learned.pathOf("GET", "/orders")).isEqualTo("shipping");
		assertThat(this.fence.figures(PathFence.LOCAL).permits()).isEqualTo(6);
		assertThat(permitsInAll()).isEqualTo(10);
	}

	@Test
	void aPathWhoseRoutesAreServedIsKept() {
		serve("/orders", 2, "shipping");
		for (int i = 0; i < 5; i++) {
			later(RETIRE_AFTER.dividedBy(2));
			serve("/orders", 1, "shipping");
			this.learned.place();
		}
		assertThat(this.learned.pathOf("GET", "/orders")).isEqualTo("shipping");
		assertThat(this.fence.hasPath("shipping")).isTrue();
	}

}
