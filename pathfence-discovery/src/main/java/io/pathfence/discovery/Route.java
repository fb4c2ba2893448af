package io.pathfence.discovery;

import java.util.Comparator;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * An inbound route of a service: the HTTP method and the request path pattern of the
 * handler that serves it, such as {@code GET /orders/{id}}.
 *
 * @param method the HTTP method in upper case, or empty for any method
 * @param pattern the request path pattern in Spring's PathPattern syntax; for a request
 * that is not HTTP (a gRPC or Thrift call seen in traces), its operation name
 */
public record Route(String method, String pattern) implements Comparable<Route> {

	private static final Pattern METHOD = Pattern.compile("[A-Z]+");

	private static final Comparator<Route> ORDER = Comparator.comparing(Route::pattern).thenComparing(Route::method);

	public Route {
		Objects.requireNonNull(method, "method");
		Objects.requireNonNull(pattern, "pattern");
		if (!method.isEmpty() && !METHOD.matcher(method).matches()) {
			throw new IllegalArgumentException("an HTTP method name in upper case or empty, not '" + method + "'");
		}
		if (pattern.isBlank()) {
			throw new IllegalArgumentException("a route needs a pattern");
		}
	}

	/**
	 * A route, its method put in upper case; a null method stands for any.
	 */
	public static Route of(String method, String pattern) {
		return new Route((method != null) ? method.trim().toUpperCase(Locale.ROOT) : "", pattern);
	}

	/**
	 * Whether the route is an HTTP request path pattern, which configuration can match;
	 * an operation name cannot be.
	 */
	public boolean isHttp() {
		return this.pattern.startsWith("/");
	}

	@Override
	public int compareTo(Route other) {
		return ORDER.compare(this, other);
	}

	@Override
	public String toString() {
		return this.method.isEmpty() ? this.pattern : this.method + " " + this.pattern;
	}

}
