package io.pathfence.demo.service;

import java.time.Duration;

import reactor.core.publisher.Mono;

import io.pathfence.core.Admission;
import io.pathfence.core.PathFence;
import io.pathfence.core.Ticket;

/**
 * A service's work slots (a database's connections) for an event-driven service: a
 * request that finds them all taken waits in order without holding a thread, as a
 * non-blocking database driver's callers do. The slots are one reservation of a
 * {@link PathFence}: a FIFO of permits with asynchronous grants.
 */
final class EventDrivenSlots {

	private static final String SLOTS = "slots";

	private final PathFence slots;

	EventDrivenSlots(int count) {
		this.slots = PathFence.builder(count)
			.path(SLOTS, count, Integer.MAX_VALUE, Duration.ZERO)
			.local(0, 0, Duration.ZERO)
			.build();
	}

	/** Runs {@code work} while holding a slot, once one is free. */
	<T> Mono<T> holding(Mono<T> work) {
		return Mono.<Ticket>create((sink) -> {
			Ticket ticket = this.slots.acquire(SLOTS, sink::success);
			if (ticket.admission() == Admission.GRANTED) {
				sink.success(ticket);
			}
			// A request given up before it got its slot must not keep it: out of the
			// queue, or, granted meanwhile, the slot goes back.
			sink.onCancel(() -> {
				if (!ticket.cancel()) {
					ticket.release();
				}
			});
		}).flatMap((ticket) -> work.doFinally((signal) -> ticket.release()));
	}

}
