package io.pathfence.cli.traces;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class TraceFileTests {

	@TempDir
	Path dir;

	@Test
	void aSyntaxErrorIsNamedByLineAndColumn() throws Exception {
		assertThat(TraceFiles.error(this.dir, "[\n  {\"traceId\": \"a1\",,}\n]", null))
			.startsWith("not valid JSON at line 2, column 20: Unexpected character (',' (code 44))");
	}

	@Test
	void anEmptyFileHoldsNoJson() throws Exception {
		assertThat(TraceFiles.error(this.dir, "  \n", null)).isEqualTo("holds no JSON");
	}

	@Test
	void aDocumentOfNoKnownShapeAsksForTheFormat() throws Exception {
		assertThat(TraceFiles.error(this.dir, "{\"spans\": []}", null))
			.isEqualTo("cannot tell the format: expected a Zipkin v2 list of spans, a Jaeger {\"data\": [...]} object"
					+ " or an OTLP {\"resourceSpans\": [...]} object, found {\"spans\":[]}; or give --format");
	}

	@Test
	void aDocumentNotInTheGivenFormatIsRefused() throws Exception {
		assertThat(TraceFiles.error(this.dir, "[]", TraceFormat.OTLP))
			.isEqualTo("expected an OTLP {\"resourceSpans\": [...]} object (--format otlp), found []");
	}

	@Test
	void laterDocumentsAreNamedByNumber() throws Exception {
		assertThat(TraceFiles.error(this.dir, "[]\n[{\"traceId\": \"a1\"}]", null))
			.isEqualTo("document 2: [0]: field \"id\": missing");
	}

	@Test
	void textAfterTheLastDocumentIsASyntaxError() throws Exception {
		assertThat(TraceFiles.error(this.dir, "[] ]", null)).startsWith("not valid JSON at line 1, column 4: ");
	}

	@Test
	void textIsReadAsAFileIs() throws Exception {
		String batch = "[{\"traceId\": \"a1\", \"id\": \"b2\", \"kind\": \"SERVER\", \"timestamp\": 1, \"duration\": 2, "
				+ "\"localEndpoint\": {\"serviceName\": \"orders\"}}]";

		assertThat(TraceFile.parse(batch, TraceFormat.ZIPKIN)).singleElement()
			.satisfies((span) -> assertThat(span.service()).isEqualTo("orders"));
		assertThatExceptionOfType(MalformedTraceException.class)
			.isThrownBy(() -> TraceFile.parse(batch.replace("\"id\"", "\"spanId\""), TraceFormat.ZIPKIN))
			.withMessage(TraceFiles.error(this.dir, batch.replace("\"id\"", "\"spanId\""), TraceFormat.ZIPKIN));
		assertThatExceptionOfType(MalformedTraceException.class)
			.isThrownBy(() -> TraceFile.parse("[] ]", TraceFormat.ZIPKIN))
			.withMessageStartingWith("not valid JSON at line 1, column 4: ");
	}

}
