package io.pathfence.sct.cli;

import io.pathfence.sct.SctResult;
import java.util.Locale;

/**
 * The one JSON object per path that {@code --json} prints; small enough not to need a
 * JSON library.
 */
final class Json {

	private Json() {
	}

	static String of(String path, SctResult r, double seconds) {
		StringBuilder b = new StringBuilder(256).append('{');
		b.append("\"path\":").append(string(path));
		b.append(",\"verdict\":").append(string(r.verdict().name()));
		b.append(",\"q_lower\":").append(r.qLower().isPresent() ? String.valueOf(r.qLower().getAsInt()) : "null");
		b.append(",\"q_upper\":").append(r.qUpper().isPresent() ? String.valueOf(r.qUpper().getAsInt()) : "null");
		b.append(",\"recommended\":")
			.append(r.recommended().isPresent() ? String.valueOf(r.recommended().getAsInt()) : "null");
		b.append(",\"plateau_throughput\":")
			.append(r.plateauThroughput().isPresent() ? number(r.plateauThroughput().getAsDouble()) : "null");
		b.append(",\"samples\":").append(r.samples());
		b.append(",\"window_seconds\":").append(number(seconds));
		b.append(",\"reason\":").append(string(r.reason()));
		return b.append('}').toString();
	}

	private static String number(double v) {
		return String.format(Locale.ROOT, "%.3f", v);
	}

	static String string(String s) {
		StringBuilder b = new StringBuilder(s.length() + 2).append('"');
		for (int i = 0; i < s.length(); i++) {
			char c = s.charAt(i);
			switch (c) {
				case '"' -> b.append("\\\"");
				case '\\' -> b.append("\\\\");
				case '\n' -> b.append("\\n");
				case '\r' -> b.append("\\r");
				case '\t' -> b.append("\\t");
				default -> {
					if (c < 0x20) {
						b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
					}
					else {
						b.append(c);
					}
				}
			}
		}
		return b.append('"').toString();
	}

}
