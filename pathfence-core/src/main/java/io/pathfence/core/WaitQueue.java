package io.pathfence.core;

/**
 * A reservation's FIFO of waiting tickets, linked through the tickets themselves so that
 * a cancelled ticket leaves it in constant time and adding one allocates nothing. Guarded
 * by the fence's lock.
 */
final class WaitQueue {

	private Ticket head;

	private Ticket tail;

	private int size;

	boolean isEmpty() {
		return this.head == null;
	}

	int size() {
		return this.size;
	}

	Ticket peek() {
		return this.head;
	}

	Ticket last() {
		return this.tail;
	}

	void add(Ticket ticket) {
		ticket.previous = this.tail;
		ticket.next = null;
		if (this.tail == null) {
			this.head = ticket;
		}
		else {
			this.tail.next = ticket;
		}
		this.tail = ticket;
		this.size++;
	}

	Ticket poll() {
		Ticket first = this.head;
		if (first != null) {
			remove(first);
		}
		return first;
	}

	/** Unlinks a ticket that is in this queue. */
	void remove(Ticket ticket) {
		Ticket previous = ticket.previous;
		Ticket next = ticket.next;
		if (previous == null) {
			this.head = next;
		}
		else {
			previous.next = next;
		}
		if (next == null) {
			this.tail = previous;
		}
		else {
			next.previous = previous;
		}
		ticket.previous = null;
		ticket.next = null;
		this.size--;
	}

}
