package io.pathfence.cli.traces;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class TraceFileTests {

	private static final ObjectMapper JSON = JsonMapper.builder().build();

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
	void aDocumentAlreadyReadIsReadAsAFileIs() throws Exception {
		String batch = "[{\"traceId\": \"a1\", \"id\": \"b2\", \"kind\": \"SERVER\", \"timestamp\": 1, \"duration\": 2, "
				+ "\"localEndpoint\": {\"serviceName\": \"orders\"}}]";
		String broken = batch.replace("\"id\"", "\"spanId\"");

		assertThat(TraceFile.parse(JSON.readTree(batch), TraceFormat.ZIPKIN)).singleElement()
			.satisfies((span) -> assertThat(span.service()).isEqualTo("orders"));
		assertThatExceptionOfType(MalformedTraceException.class)
			.isThrownBy(() -> TraceFile.parse(JSON.readTree(broken), TraceFormat.ZIPKIN))
			.withMessage(TraceFiles.error(this.dir, broken, TraceFormat.ZIPKIN));
	}

	@Test
	void zipkinSpansAreTheSpanObjectsOfBothShapesInOrder() {
		JsonNode document = JSON.readTree("[{\"id\": \"1\"}, [{\"id\": \"2\"}, {\"id\": \"3\"}], {\"id\": \"4\"}]");

		assertThat(TraceFile.zipkinSpans(document)).extracting((span) -> span.get("id").stringValue())
			.containsExactly("1", "2", "3", "4");
	}

}
