package io.pathfence.whatif.profile;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The samples of a Prometheus text exposition (version 0.0.4, what Micrometer's
 * Prometheus registry serves at {@code /actuator/prometheus}): one
 * {@code name{label="value",...} value [timestamp]} per line, comments and blank lines
 * skipped.
 * <p>
 * Written here rather than taken from a library: the Prometheus Java client only writes
 * the format, and the profiler needs nothing but the samples.
 */
public final class PrometheusText {

	/**
	 * One sample.
	 *
	 * @param name the metric name, with its suffix ({@code _count}, {@code _sum})
	 * @param labels the labels, in the order written
	 * @param value the value
	 */
	public record Sample(String name, Map<String, String> labels, double value) {
	}

	private PrometheusText() {
	}

	/**
	 * Parses an exposition.
	 * @param text the exposition
	 * @return its samples, in order
	 * @throws IllegalArgumentException naming the line if a line is not a sample
	 */
	public static List<Sample> parse(String text) {
		List<Sample> samples = new ArrayList<>();
		String[] lines = text.split("\n", -1);
		for (int i = 0; i < lines.length; i++) {
			String line = lines[i].strip();
			if (line.isEmpty() || line.startsWith("#")) {
				continue;
			}
			try {
				samples.add(sample(line));
			}
			catch (RuntimeException ex) {
				throw new IllegalArgumentException(
						"line " + (i + 1) + " is not a Prometheus sample (" + ex.getMessage() + "): " + line, ex);
			}
		}
		return samples;
	}

	private static Sample sample(String line) {
		int brace = line.indexOf('{');
		int space = line.indexOf(' ');
		Map<String, String> labels = new LinkedHashMap<>();
		String name;
		int rest;
		if (brace >= 0 && (space < 0 || brace < space)) {
			name = line.substring(0, brace);
			rest = labels(line, brace + 1, labels);
		}
		else {
			if (space < 0) {
				throw new IllegalArgumentException("no value");
			}
			name = line.substring(0, space);
			rest = space;
		}
		if (name.isEmpty()) {
			throw new IllegalArgumentException("no metric name");
		}
		String[] fields = line.substring(rest).strip().split("\\s+");
		if (fields.length < 1 || fields.length > 2 || fields[0].isEmpty()) {
			throw new IllegalArgumentException("expected a value and an optional timestamp");
		}
		return new Sample(name, Collections.unmodifiableMap(labels), value(fields[0]));
	}

	/**
	 * Reads labels such as {@code a="x",b="y"} from {@code at}; returns the index after
	 * the closing brace.
	 */
	private static int labels(String line, int at, Map<String, String> labels) {
		int i = at;
		while (true) {
			while (i < line.length() && (line.charAt(i) == ' ' || line.charAt(i) == ',')) {
				i++;
			}
			if (i >= line.length()) {
				throw new IllegalArgumentException("unclosed labels");
			}
			if (line.charAt(i) == '}') {
				return i + 1;
			}
			int equals = line.indexOf('=', i);
			if (equals < 0 || equals + 1 >= line.length() || line.charAt(equals + 1) != '"') {
				throw new IllegalArgumentException("a label without a quoted value");
			}
			String label = line.substring(i, equals).strip();
			StringBuilder value = new StringBuilder();
			i = equals + 2;
			while (true) {
				if (i >= line.length()) {
					throw new IllegalArgumentException("unclosed label value");
				}
				char c = line.charAt(i++);
				if (c == '"') {
					break;
				}
				if (c == '\\' && i < line.length()) {
					char escaped = line.charAt(i++);
					value.append((escaped == 'n') ? '\n' : escaped);
				}
				else {
					value.append(c);
				}
			}
			labels.put(label, value.toString());
		}
	}

	private static double value(String text) {
		return switch (text) {
			case "+Inf" -> Double.POSITIVE_INFINITY;
			case "-Inf" -> Double.NEGATIVE_INFINITY;
			case "NaN" -> Double.NaN;
			default -> Double.parseDouble(text);
		};
	}

}
