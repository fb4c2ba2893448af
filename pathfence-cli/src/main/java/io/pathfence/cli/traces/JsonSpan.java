package io.pathfence.cli.traces;

import java.math.BigInteger;
import java.util.Locale;
import java.util.regex.Pattern;

import tools.jackson.databind.JsonNode;

/**
 * One JSON object of a trace file (a span, or a part of one) and where it is, with typed
 * reads that fail naming the place, the span's id once known, and the field.
 */
final class JsonSpan {

	private static final Pattern HEX = Pattern.compile("[0-9a-fA-F]+");

	private static final Pattern DIGITS = Pattern.compile("[0-9]+");

	private static final BigInteger MAX_LONG = BigInteger.valueOf(Long.MAX_VALUE);

	private static final int SHOWN = 40;

	private static final long MAX_MICROS = Long.MAX_VALUE / 2000;

	final String where;

	final JsonNode node;

	private String id;

	JsonSpan(String where, JsonNode node) throws MalformedTraceException {
		this.where = where;
		this.node = node;
		if (!node.isObject()) {
			throw new MalformedTraceException(where + ": expected an object, found " + shown(node));
		}
	}

	/** Names the span by its id in later messages. */
	void id(String id) {
		this.id = id;
	}

	String where() {
		return (this.id != null) ? this.where + " (span " + this.id + ")" : this.where;
	}

	MalformedTraceException error(String field, String problem) {
		return new MalformedTraceException(where() + ": field \"" + field + "\": " + problem);
	}

	private MalformedTraceException expected(String field, String what, JsonNode found) {
		return error(field, "expected " + what + ", found " + shown(found));
	}

	JsonNode get(String field) {
		JsonNode value = this.node.get(field);
		return (value == null || value.isNull()) ? null : value;
	}

	String string(String field) throws MalformedTraceException {
		JsonNode value = get(field);
		if (value == null) {
			return null;
		}
		if (!value.isString()) {
			throw expected(field, "a string", value);
		}
		return value.stringValue();
	}

	String requiredString(String field) throws MalformedTraceException {
		String value = string(field);
		if (value == null) {
			throw error(field, "missing");
		}
		return value;
	}

	/** A hex id of at most {@code maxDigits} digits, lower-cased; null when absent. */
	String hex(String field, int maxDigits, boolean required) throws MalformedTraceException {
		JsonNode value = get(field);
		if (value == null || (!required && value.isString() && value.stringValue().isEmpty())) {
			if (required) {
				throw error(field, "missing");
			}
			return null;
		}
		if (!value.isString() || !HEX.matcher(value.stringValue()).matches()
				|| value.stringValue().length() > maxDigits) {
			throw expected(field, "a string of 1 to " + maxDigits + " hex digits", value);
		}
		return value.stringValue().toLowerCase(Locale.ROOT);
	}

	/** A JSON whole number of 0 or more. */
	long wholeNumber(String field, String unit) throws MalformedTraceException {
		JsonNode value = get(field);
		if (value == null) {
			throw error(field, "missing");
		}
		if (!value.isIntegralNumber() || !value.canConvertToLong() || value.longValue() < 0) {
			throw expected(field, "a whole number of " + unit + ", 0 or more", value);
		}
		return value.longValue();
	}

	/**
	 * Microseconds (Zipkin's and Jaeger's unit) as nanoseconds; at most half of what a
	 * long holds, so that a start plus a duration still fits.
	 */
	long micros(String field) throws MalformedTraceException {
		long micros = wholeNumber(field, "microseconds");
		if (micros > MAX_MICROS) {
			throw error(field, "expected at most " + MAX_MICROS + " microseconds, found " + micros);
		}
		return micros * 1000L;
	}

	/**
	 * An int64 as OTLP's JSON writes it, a string of digits, or as a number.
	 */
	long int64(String field, String unit) throws MalformedTraceException {
		JsonNode value = get(field);
		if (value == null) {
			throw error(field, "missing");
		}
		if (value.isString() && DIGITS.matcher(value.stringValue()).matches()
				&& new BigInteger(value.stringValue()).compareTo(MAX_LONG) <= 0) {
			return Long.parseLong(value.stringValue());
		}
		if (value.isIntegralNumber() && value.canConvertToLong() && value.longValue() >= 0) {
			return value.longValue();
		}
		throw expected(field, unit + " as a string of digits", value);
	}

	JsonNode array(String field, boolean required) throws MalformedTraceException {
		JsonNode value = get(field);
		if (value == null) {
			if (required) {
				throw error(field, "missing");
			}
			return null;
		}
		if (!value.isArray()) {
			throw expected(field, "an array", value);
		}
		return value;
	}

	JsonNode object(String field) throws MalformedTraceException {
		JsonNode value = get(field);
		if (value != null && !value.isObject()) {
			throw expected(field, "an object", value);
		}
		return value;
	}

	/** A JSON value as people read it, cut short. */
	static String shown(JsonNode value) {
		String text = value.toString();
		return (text.length() <= SHOWN) ? text : text.substring(0, SHOWN - 3) + "...";
	}

}
