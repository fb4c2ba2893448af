package io.pathfence.discovery;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.zip.CRC32;

/**
 * Names a path after the set of downstream services its routes call.
 * <p>
 * The set reads {@code payment+shipping} (sorted, joined with {@code +}). A path name
 * must also be a key both the starter ({@code [A-Za-z0-9][A-Za-z0-9_.-]*}) and the filter
 * (letters, digits, {@code _} and {@code -}) accept, and neither takes {@code +}. So each
 * service name is reduced to letters, digits and single dashes, and the names are joined
 * with an underscore, which then only ever joins: {@code payment_shipping}. Long names
 * are cut and end in a hash of the whole set, so that they stay distinct.
 */
public final class PathNames {

	/** The longest path name given; longer ones are cut and end in a hash. */
	public static final int MAX_LENGTH = 64;

	/**
	 * The name requests of no path are accounted under, by the starter and the filter.
	 */
	public static final String LOCAL = "local";

	private static final String JOINER = "_";

	private static final int HASH_LENGTH = 8;

	private PathNames() {
	}

	/** The set as people read it: sorted names joined with {@code +}. */
	public static String setName(Collection<String> downstreams) {
		return String.join("+", new TreeSet<>(downstreams));
	}

	/**
	 * A valid path name for the set, before any clash with another name is resolved (see
	 * {@link #unique}).
	 */
	public static String pathName(Collection<String> downstreams) {
		if (downstreams.isEmpty()) {
			throw new IllegalArgumentException("a path calls at least one downstream");
		}
		List<String> parts = new ArrayList<>();
		for (String downstream : new TreeSet<>(downstreams)) {
			parts.add(part(downstream));
		}
		String name = String.join(JOINER, parts);
		if (name.length() <= MAX_LENGTH) {
			return name;
		}
		CRC32 crc = new CRC32();
		crc.update(setName(downstreams).getBytes(StandardCharsets.UTF_8));
		String hash = String.format(Locale.ROOT, "%08x", crc.getValue());
		String head = name.substring(0, MAX_LENGTH - HASH_LENGTH - 1).replaceAll("[-_]+$", "");
		return head + "-" + hash;
	}

	/**
	 * {@code name}, or, when it is taken or reserved ({@value #LOCAL}), the first of
	 * {@code name-2}, {@code name-3}, ... that is not.
	 */
	public static String unique(String name, Set<String> taken) {
		if (!taken.contains(name) && !LOCAL.equals(name)) {
			return name;
		}
		for (int i = 2;; i++) {
			String candidate = name + "-" + i;
			if (!taken.contains(candidate)) {
				return candidate;
			}
		}
	}

	/** One service name as letters, digits and single dashes, never empty. */
	private static String part(String downstream) {
		StringBuilder b = new StringBuilder(downstream.length());
		for (int i = 0; i < downstream.length(); i++) {
			char c = downstream.charAt(i);
			boolean keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
			if (keep) {
				b.append(c);
			}
			else if (b.length() > 0 && b.charAt(b.length() - 1) != '-') {
				b.append('-');
			}
		}
		while (b.length() > 0 && b.charAt(b.length() - 1) == '-') {
			b.setLength(b.length() - 1);
		}
		return (b.length() > 0) ? b.toString() : "x";
	}

}
