package io.pathfence.demo.service;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Mono;

import io.pathfence.core.Admission;
import io.pathfence.core.PathFence;
import io.pathfence.core.PathFigures;
import io.pathfence.core.Ticket;
import io.pathfence.core.Waiter;

/**
 * A service's work slots (a database's connections) for an event-driven service: a
 * request that finds them all taken waits in order without holding a thread, as a
 * non-blocking database driver's callers do. The slots are one reservation of a
 * {@link PathFence}: a FIFO of permits with asynchronous grants.
 */
final class EventDrivenSlots {

	private static final String SLOTS = "slots";

	private static final int WAITING = 0;

	private static final int DELIVERED = 1;

	private static final int GIVEN_UP = 2;

	private final PathFence slots;

	EventDrivenSlots(int count) {
		this.slots = PathFence.builder(count)
			.path(SLOTS, count, Integer.MAX_VALUE, Duration.ZERO)
			.local(0, 0, Duration.ZERO)
			.build();
	}

	/** The slots held now and the requests waiting for one. */
	PathFigures figures() {
		return this.slots.figures(SLOTS);
	}

	/**
	 * Runs {@code work} while holding a slot, once one is free. The slot goes back when
	 * the work ends however it ends; a request given up while it waits leaves the queue,
	 * and one given up as it is granted gives the slot back at once. Whichever comes
	 * first, the grant or the subscriber giving up, decides, so the work never runs
	 * without its slot.
	 */
	<T> Mono<T> holding(Mono<T> work) {
		return Mono.create((sink) -> {
			AtomicInteger state = new AtomicInteger(WAITING);
			AtomicReference<Ticket> claimed = new AtomicReference<>();
			// Disposed when the subscriber gives up; work subscribed to it afterwards is
			// disposed at once, and its clean-up gives the slot back.
			Disposable.Swap running = Disposables.swap();
			Waiter deliver = new Waiter() {

				@Override
				public void granted(Ticket ticket) {
					if (state.compareAndSet(WAITING, DELIVERED)) {
						running.update(work.doFinally((signal) -> ticket.release())
							.subscribe(sink::success, sink::error, sink::success));
					}
					else {
						ticket.release();
					}
				}

				@Override
				public void expired(Ticket ticket) {
					if (state.compareAndSet(WAITING, GIVEN_UP)) {
						sink.error(new IllegalStateException("no slot was free within the queue timeout"));
					}
				}

			};
			sink.onCancel(() -> {
				running.dispose();
				if (state.compareAndSet(WAITING, GIVEN_UP)) {
					Ticket ticket = claimed.get();
					if (ticket != null) {
						// False when it was granted meanwhile: the grant, seeing the
						// request given up, releases it.
						ticket.cancel();
					}
				}
			});
			Ticket ticket = this.slots.acquire(SLOTS, deliver);
			claimed.set(ticket);
			if (ticket.admission() == Admission.GRANTED) {
				deliver.granted(ticket);
			}
			else if (state.get() == GIVEN_UP) {
				// Given up before the ticket was known here: leave the queue.
				ticket.cancel();
			}
		});
	}

}
