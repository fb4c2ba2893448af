package io.pathfence.sct;

import java.util.Objects;

/**
 * One finished request of one path, as recorded offline.
 *
 * @param path the execution path the request took
 * @param arrivalNanos when it entered the path's reservation, in nanoseconds on any fixed
 * origin
 * @param departureNanos when it left, on the same origin; not before {@code arrivalNanos}
 */
public record RequestRecord(String path, long arrivalNanos, long departureNanos) {

	public RequestRecord {
		Objects.requireNonNull(path, "path");
		if (arrivalNanos < 0 || departureNanos < arrivalNanos) {
			throw new IllegalArgumentException(
					"need 0 <= arrival <= departure, got " + arrivalNanos + " and " + departureNanos);
		}
	}
}
