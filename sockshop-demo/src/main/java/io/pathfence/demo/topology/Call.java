package io.pathfence.demo.topology;

/**
 * One call a route makes to a downstream service, written {@code METHOD service /path}.
 *
 * @param method the HTTP method
 * @param service the downstream service
 * @param path the request path at the downstream
 */
public record Call(String method, String service, String path) {

	@Override
	public String toString() {
		return this.method + " " + this.service + " " + this.path;
	}

}
