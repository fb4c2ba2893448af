package io.pathfence.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;

/**
 * The scenarios' figures: printed, and written to {@code target/scenario-figures.txt}
 * (anew each run) to read after it.
 */
final class Figures {

	private static final Path FILE = Paths.get(System.getProperty("pathfence.figures", "target/scenario-figures.txt"));

	static {
		try {
			Files.deleteIfExists(FILE);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private Figures() {
	}

	static synchronized void print(String line) {
		System.out.println(line);
		try {
			Files.createDirectories(FILE.toAbsolutePath().getParent());
			Files.writeString(FILE, line + System.lineSeparator(), StandardCharsets.UTF_8, StandardOpenOption.CREATE,
					StandardOpenOption.APPEND);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
