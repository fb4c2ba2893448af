package io.pathfence.cli.traces;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import io.pathfence.discovery.trace.Span;

import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Writes trace text to a file and reads it back, for the reader tests.
 */
final class TraceFiles {

	private TraceFiles() {
	}

	static List<Span> read(Path dir, String json, TraceFormat format) throws Exception {
		return TraceFile.read(write(dir, json), format);
	}

	static String error(Path dir, String json, TraceFormat format) throws IOException {
		Path file = write(dir, json);
		String[] message = new String[1];
		assertThatExceptionOfType(MalformedTraceException.class).isThrownBy(() -> TraceFile.read(file, format))
			.satisfies((e) -> message[0] = e.getMessage());
		return message[0];
	}

	private static Path write(Path dir, String json) throws IOException {
		Path file = Files.createTempFile(dir, "traces", ".json");
		Files.writeString(file, json);
		return file;
	}

}
