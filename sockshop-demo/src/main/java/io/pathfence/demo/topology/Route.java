package io.pathfence.demo.topology;

import java.util.List;

/**
 * A request a service answers, written {@code METHOD /path}: its own work, then its
 * calls, one after the other; the first that fails ends the request with that failure, as
 * a synchronous service that needs each answer before the next call does.
 *
 * @param method the HTTP method
 * @param path the exact request path
 * @param calls the downstream calls, in order
 */
public record Route(String method, String path, List<Call> calls) {

	public Route {
		calls = List.copyOf(calls);
	}

	/** Whether a request with this method and path is this route. */
	public boolean matches(String method, String path) {
		return this.method.equalsIgnoreCase(method) && this.path.equals(path);
	}

	@Override
	public String toString() {
		return this.method + " " + this.path;
	}

}
