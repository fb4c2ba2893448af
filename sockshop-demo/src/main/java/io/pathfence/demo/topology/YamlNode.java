package io.pathfence.demo.topology;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.springframework.boot.convert.DurationStyle;

/**
 * A value read from a topology file together with where it is
 * ({@code services.orders.pools}), so that every refusal names its field.
 */
final class YamlNode {

	private final String field;

	private final Object value;

	YamlNode(String field, Object value) {
		this.field = field;
		this.value = value;
	}

	String field() {
		return this.field;
	}

	boolean isMissing() {
		return this.value == null;
	}

	InvalidTopologyException invalid(String problem) {
		return new InvalidTopologyException(this.field, problem);
	}

	/** The entries of a mapping, keys in the file's order. */
	Map<String, YamlNode> entries() {
		if (!(this.value instanceof Map<?, ?> map)) {
			throw invalid("must be a mapping of names to values, not " + shown());
		}
		Map<String, YamlNode> entries = new LinkedHashMap<>();
		map.forEach((key, child) -> entries.put(String.valueOf(key), new YamlNode(child(String.valueOf(key)), child)));
		return entries;
	}

	/**
	 * The mapping's entries, after refusing any key that is not one of {@code allowed}.
	 */
	Map<String, YamlNode> entries(Set<String> allowed) {
		Map<String, YamlNode> entries = entries();
		for (String key : entries.keySet()) {
			if (!allowed.contains(key)) {
				throw new InvalidTopologyException(child(key), "unknown field; allowed here: " + allowed);
			}
		}
		return entries;
	}

	List<YamlNode> items() {
		if (!(this.value instanceof List<?> list)) {
			throw invalid("must be a list, not " + shown());
		}
		List<YamlNode> items = new ArrayList<>();
		for (int i = 0; i < list.size(); i++) {
			items.add(new YamlNode(this.field + "[" + i + "]", list.get(i)));
		}
		return items;
	}

	String text() {
		if (!(this.value instanceof String || this.value instanceof Number || this.value instanceof Boolean)
				|| String.valueOf(this.value).isBlank()) {
			throw invalid("must be a non-empty text, not " + shown());
		}
		return String.valueOf(this.value).strip();
	}

	int wholeNumber(int least) {
		if (!(this.value instanceof Integer number) || number < least) {
			throw invalid("must be a whole number of at least " + least + ", not " + shown());
		}
		return number;
	}

	double positiveNumber() {
		if (!(this.value instanceof Number number) || !(number.doubleValue() > 0)
				|| Double.isInfinite(number.doubleValue())) {
			throw invalid("must be a number above 0, not " + shown());
		}
		return number.doubleValue();
	}

	boolean bool() {
		if (!(this.value instanceof Boolean flag)) {
			throw invalid("must be true or false, not " + shown());
		}
		return flag;
	}

	/** A duration such as {@code 500us}, {@code 20ms}, {@code 10s} or ISO-8601. */
	Duration duration() {
		String text = text();
		try {
			Duration duration = DurationStyle.detectAndParse(text);
			if (duration.isNegative()) {
				throw invalid("must not be negative, not " + shown());
			}
			return duration;
		}
		catch (IllegalArgumentException ex) {
			if (ex instanceof InvalidTopologyException invalid) {
				throw invalid;
			}
			throw invalid("must be a duration such as 500us, 20ms or 10s, not " + shown());
		}
	}

	private String child(String key) {
		return this.field.isEmpty() ? key : this.field + "." + key;
	}

	private String shown() {
		if (this.value == null) {
			return "nothing";
		}
		return (this.value instanceof String) ? "'" + this.value + "'" : String.valueOf(this.value);
	}

}
