package io.pathfence.cli.traces;

import java.util.ArrayList;
import java.util.List;

import tools.jackson.databind.JsonNode;

/**
 * Tag and attribute values as the text the analysis compares.
 */
final class Tags {

	private Tags() {
	}

	/** A JSON scalar as text, or null for an object or array. */
	static String scalar(JsonNode value) {
		if (value.isString()) {
			return value.stringValue();
		}
		if (value.isNumber() || value.isBoolean()) {
			return value.toString();
		}
		return null;
	}

	/**
	 * An OTLP {@code AnyValue} ({@code {"stringValue": "x"}}, {@code {"intValue": "3"}},
	 * ...) as text: arrays joined with commas, key-value lists as JSON; null when it is
	 * not an AnyValue.
	 */
	static String anyValue(JsonNode value) {
		if (!value.isObject()) {
			return null;
		}
		if (value.isEmpty()) {
			return "";
		}
		for (String kind : List.of("stringValue", "boolValue", "intValue", "doubleValue", "bytesValue")) {
			JsonNode v = value.get(kind);
			if (v != null) {
				return scalar(v);
			}
		}
		JsonNode array = value.get("arrayValue");
		if (array != null) {
			List<String> items = new ArrayList<>();
			JsonNode values = array.get("values");
			if (values != null && values.isArray()) {
				for (JsonNode item : values) {
					String text = anyValue(item);
					if (text == null) {
						return null;
					}
					items.add(text);
				}
			}
			return String.join(",", items);
		}
		JsonNode kvlist = value.get("kvlistValue");
		return (kvlist != null) ? kvlist.toString() : null;
	}

}
