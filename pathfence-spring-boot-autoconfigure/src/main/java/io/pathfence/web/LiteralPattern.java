package io.pathfence.web;

import org.springframework.web.util.pattern.PathPattern;

/**
 * A route pattern that names one literal path ({@code /health}) or everything under one
 * ({@code /orders/**}), matched on the raw request URI as Spring's {@link PathPattern}
 * matches it, without parsing the URI into segments. Most routes are of these two kinds,
 * and parsing a request's path allocates several objects on every request, which is most
 * of what classifying it would otherwise cost.
 * <p>
 * Only a URI that parsing would leave as it is qualifies ({@link #isPlain}): one with no
 * percent-encoding to decode and no matrix variables to strip. Any other URI, and any
 * other pattern, goes through {@link PathPattern}.
 */
final class LiteralPattern {

	private final String path;

	private final boolean andBelow;

	private LiteralPattern(String path, boolean andBelow) {
		this.path = path;
		this.andBelow = andBelow;
	}

	/** The literal form of a pattern, or {@code null} if it has anything but literals. */
	static LiteralPattern of(PathPattern pattern) {
		String text = pattern.getPatternString();
		boolean andBelow = text.endsWith("/**");
		String path = andBelow ? text.substring(0, text.length() - 3) : text;
		if (!isLiteral(path, andBelow)) {
			return null;
		}
		return new LiteralPattern(path, andBelow);
	}

	/**
	 * Segments of letters, digits and {@code - _ . ~}, each after one {@code /}; for a
	 * pattern ending in {@code /**}, the part before it may also be empty.
	 */
	private static boolean isLiteral(String path, boolean andBelow) {
		if (path.isEmpty()) {
			return andBelow;
		}
		if (path.charAt(0) != '/' || path.charAt(path.length() - 1) == '/') {
			return false;
		}
		for (int i = 1; i < path.length(); i++) {
			char c = path.charAt(i);
			boolean word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-'
					|| c == '_' || c == '.' || c == '~';
			if (!word && !(c == '/' && path.charAt(i - 1) != '/')) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Whether a request URI is its own path within the application, segment for segment:
	 * it starts with {@code /} and has nothing to decode ({@code %}) or strip
	 * ({@code ;}).
	 */
	static boolean isPlain(String uri) {
		if (uri.isEmpty() || uri.charAt(0) != '/') {
			return false;
		}
		for (int i = 1; i < uri.length(); i++) {
			char c = uri.charAt(i);
			if (c == '%' || c == ';') {
				return false;
			}
		}
		return true;
	}

	/** Whether the pattern matches a URI for which {@link #isPlain} holds. */
	boolean matches(String plainUri) {
		if (!this.andBelow) {
			return plainUri.equals(this.path);
		}
		return plainUri.startsWith(this.path)
				&& (plainUri.length() == this.path.length() || plainUri.charAt(this.path.length()) == '/');
	}

}
