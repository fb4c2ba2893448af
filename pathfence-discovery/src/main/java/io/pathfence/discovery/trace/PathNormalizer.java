package io.pathfence.discovery.trace;

import java.util.regex.Pattern;

/**
 * Turns a request path into a route pattern when a span carries the path but not the
 * route: segments that look like identifiers become variables, so {@code /orders/42} and
 * {@code /orders/43} are one route, {@code /orders/{id}}.
 * <p>
 * An identifier is a number, a UUID, a hex string of 8 or more characters with a digit,
 * or a token of 16 or more letters, digits, {@code _} and {@code -} with both a letter
 * and a digit. Each variable gets its own name ({@code {id}}, {@code {id2}}, ...), as a
 * pattern may not repeat one.
 */
public final class PathNormalizer {

	private static final Pattern NUMBER = Pattern.compile("[0-9]+");

	private static final Pattern UUID = Pattern
		.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

	private static final Pattern HEX = Pattern.compile("(?=.*[0-9])[0-9a-fA-F]{8,}");

	private static final Pattern TOKEN = Pattern.compile("(?=.*[0-9])(?=.*[A-Za-z])[A-Za-z0-9_-]{16,}");

	private PathNormalizer() {
	}

	/** The route pattern of a request path; the query, if any, is dropped. */
	public static String normalize(String path) {
		String bare = stripQuery(path);
		if (bare.isEmpty()) {
			return "/";
		}
		String[] segments = bare.split("/", -1);
		StringBuilder pattern = new StringBuilder(bare.length());
		int variables = 0;
		for (int i = 0; i < segments.length; i++) {
			if (i > 0) {
				pattern.append('/');
			}
			String segment = segments[i];
			if (isIdentifier(segment)) {
				variables++;
				pattern.append((variables == 1) ? "{id}" : "{id" + variables + "}");
			}
			else {
				pattern.append(segment);
			}
		}
		return (pattern.charAt(0) == '/') ? pattern.toString() : "/" + pattern;
	}

	static String stripQuery(String path) {
		int cut = path.length();
		int query = path.indexOf('?');
		int fragment = path.indexOf('#');
		if (query >= 0) {
			cut = query;
		}
		if (fragment >= 0 && fragment < cut) {
			cut = fragment;
		}
		return path.substring(0, cut);
	}

	private static boolean isIdentifier(String segment) {
		return NUMBER.matcher(segment).matches() || UUID.matcher(segment).matches() || HEX.matcher(segment).matches()
				|| TOKEN.matcher(segment).matches();
	}

}
