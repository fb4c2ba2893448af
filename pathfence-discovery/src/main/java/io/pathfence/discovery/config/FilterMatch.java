package io.pathfence.discovery.config;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * How the filter matches a request's URL path: one of its {@code match} object's
 * {@code exact}, {@code prefix} or {@code regex} fields.
 *
 * @param kind the field
 * @param value its value
 */
public record FilterMatch(Kind kind, String value) {

	public FilterMatch {
		Objects.requireNonNull(kind, "kind");
		Objects.requireNonNull(value, "value");
	}

	static FilterMatch exact(String path) {
		return new FilterMatch(Kind.EXACT, path);
	}

	static FilterMatch prefix(String prefix) {
		return new FilterMatch(Kind.PREFIX, prefix);
	}

	static FilterMatch regex(String regex) {
		return new FilterMatch(Kind.REGEX, regex);
	}

	/** Whether the filter would match {@code path} (the query already removed). */
	public boolean matches(String path) {
		return switch (this.kind) {
			case EXACT -> path.equals(this.value);
			case PREFIX -> path.startsWith(this.value);
			// The filter anchors its regexes at both ends, as matches() does.
			case REGEX -> Pattern.compile(this.value).matcher(path).matches();
		};
	}

	/** The filter's field names. */
	public enum Kind {

		EXACT("exact"), PREFIX("prefix"), REGEX("regex");

		private final String field;

		Kind(String field) {
			this.field = field;
		}

		/** The field's name in the filter's {@code match} object. */
		public String field() {
			return this.field;
		}

	}

}
