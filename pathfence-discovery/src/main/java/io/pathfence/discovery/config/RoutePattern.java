package io.pathfence.discovery.config;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * A request path pattern in Spring's PathPattern syntax ({@code /orders/{id}},
 * {@code /static/**}, {@code /files/{*path}}, {@code /*.html}), read into what the
 * writers need: a regular expression that matches the same request paths (written in the
 * syntax Java and the Rust {@code regex} crate share), the filter's simplest match for
 * it, and a request path it matches, to check a generated configuration with.
 */
public final class RoutePattern {

	private static final String REGEX_SPECIALS = "\\.+*?()|[]{}^$";

	private static final String REST = "(?:/.*)?";

	private final String pattern;

	private final String regex;

	private final FilterMatch filterMatch;

	private final String sample;

	private final Pattern compiled;

	private RoutePattern(String pattern, String regex, FilterMatch filterMatch, String sample) {
		this.pattern = pattern;
		this.regex = regex;
		this.filterMatch = filterMatch;
		this.compiled = Pattern.compile(regex);
		this.sample = (sample != null && this.compiled.matcher(sample).matches()) ? sample : null;
	}

	/**
	 * Reads {@code pattern}.
	 * @throws IllegalArgumentException if it does not start with {@code /}, has
	 * {@code **} or {@code {*name}} before its end, or has an unclosed or invalid
	 * variable
	 */
	public static RoutePattern parse(String pattern) {
		if (pattern == null || !pattern.startsWith("/")) {
			throw new IllegalArgumentException("a request path pattern starts with '/': " + pattern);
		}
		String[] segments = pattern.substring(1).split("/", -1);
		StringBuilder regex = new StringBuilder();
		StringBuilder sample = new StringBuilder();
		StringBuilder literalPrefix = new StringBuilder();
		boolean literalSoFar = true;
		Kind last = Kind.LITERAL;
		for (int i = 0; i < segments.length; i++) {
			Segment segment = segment(segments[i], pattern);
			boolean isLast = i == segments.length - 1;
			if (segment.kind == Kind.REST && !isLast) {
				throw new IllegalArgumentException("'" + segments[i] + "' may only end a pattern: " + pattern);
			}
			if (segment.kind == Kind.REST) {
				regex.append(REST);
				sample.append("/0");
			}
			else {
				regex.append('/').append(segment.regex);
				sample.append('/').append(segment.sample);
			}
			if (isLast) {
				last = segment.kind;
			}
			else if (segment.kind != Kind.LITERAL) {
				literalSoFar = false;
			}
			if (literalSoFar && !isLast) {
				literalPrefix.append('/').append(segments[i]);
			}
		}
		FilterMatch match;
		if (literalSoFar && last == Kind.LITERAL) {
			match = FilterMatch.exact(pattern);
		}
		else if (literalSoFar && last == Kind.REST) {
			match = FilterMatch.prefix((literalPrefix.length() > 0) ? literalPrefix.toString() : "/");
		}
		else if (literalSoFar && last == Kind.CAPTURE && literalPrefix.length() > 0) {
			match = FilterMatch.prefix(literalPrefix + "/");
		}
		else {
			match = FilterMatch.regex(regex.toString());
		}
		try {
			return new RoutePattern(pattern, regex.toString(), match, sample.toString());
		}
		catch (PatternSyntaxException ex) {
			throw new IllegalArgumentException(
					"an invalid variable pattern in " + pattern + ": " + ex.getDescription());
		}
	}

	/** The pattern as written. */
	public String pattern() {
		return this.pattern;
	}

	/**
	 * A regular expression that matches exactly the request paths the pattern matches, to
	 * be anchored at both ends.
	 */
	public String regex() {
		return this.regex;
	}

	/**
	 * The filter's simplest match covering the pattern: {@code exact} for a literal,
	 * {@code prefix} for {@code /x/**} and for a variable last segment after a literal
	 * ({@code /x/{id}}, which then also matches deeper paths), {@code regex} otherwise.
	 */
	public FilterMatch filterMatch() {
		return this.filterMatch;
	}

	/** A request path the pattern matches, or null when none could be made up. */
	public String sample() {
		return this.sample;
	}

	/** Whether the pattern matches {@code path}, as Spring's PathPattern does. */
	public boolean matches(String path) {
		return this.compiled.matcher(path).matches();
	}

	static String quote(String literal) {
		StringBuilder b = new StringBuilder(literal.length() + 8);
		for (int i = 0; i < literal.length(); i++) {
			char c = literal.charAt(i);
			if (REGEX_SPECIALS.indexOf(c) >= 0) {
				b.append('\\');
			}
			b.append(c);
		}
		return b.toString();
	}

	private static Segment segment(String text, String pattern) {
		if (text.equals("**") || (text.startsWith("{*") && text.endsWith("}"))) {
			return new Segment(Kind.REST, REST, "0");
		}
		StringBuilder regex = new StringBuilder();
		StringBuilder sample = new StringBuilder();
		StringBuilder literal = new StringBuilder();
		int captures = 0;
		boolean other = false;
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (c == '{') {
				int close = closing(text, i, pattern);
				String variable = text.substring(i + 1, close);
				int colon = variable.indexOf(':');
				regex.append(quote(literal.toString()));
				literal.setLength(0);
				if (colon < 0) {
					regex.append("[^/]+");
					captures++;
				}
				else {
					regex.append("(?:").append(variable.substring(colon + 1)).append(')');
					other = true;
				}
				sample.append('0');
				i = close;
			}
			else if (c == '*' || c == '?') {
				regex.append(quote(literal.toString()));
				literal.setLength(0);
				regex.append((c == '*') ? "[^/]*" : "[^/]");
				sample.append('0');
				other = true;
			}
			else {
				literal.append(c);
				sample.append(c);
			}
		}
		boolean onlyCapture = captures == 1 && !other && text.startsWith("{") && text.endsWith("}");
		Kind kind = (captures == 0 && !other) ? Kind.LITERAL : onlyCapture ? Kind.CAPTURE : Kind.OTHER;
		regex.append(quote(literal.toString()));
		return new Segment(kind, regex.toString(), sample.toString());
	}

	/** The index of the brace closing the variable that opens at {@code open}. */
	private static int closing(String text, int open, String pattern) {
		int depth = 0;
		for (int i = open; i < text.length(); i++) {
			if (text.charAt(i) == '{') {
				depth++;
			}
			else if (text.charAt(i) == '}' && --depth == 0) {
				return i;
			}
		}
		throw new IllegalArgumentException("an unclosed '{' in " + pattern);
	}

	private enum Kind {

		LITERAL, CAPTURE, REST, OTHER

	}

	private record Segment(Kind kind, String regex, String sample) {
	}

	/**
	 * Builds the one regular expression that matches any of several patterns.
	 */
	static String anyOf(List<RoutePattern> patterns) {
		List<String> parts = new ArrayList<>();
		for (RoutePattern p : patterns) {
			parts.add((patterns.size() == 1) ? p.regex : "(?:" + p.regex + ")");
		}
		return String.join("|", parts);
	}

}
