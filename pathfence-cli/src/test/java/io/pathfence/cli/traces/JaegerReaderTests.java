package io.pathfence.cli.traces;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.pathfence.discovery.trace.Span;
import io.pathfence.discovery.trace.SpanKind;

import static org.assertj.core.api.Assertions.assertThat;

class JaegerReaderTests {

	@TempDir
	Path dir;

	@Test
	void readsTheQueryApisTraces() throws Exception {
		String json = """
				{"data": [{"traceID": "7a1f", "spans": [
				   {"traceID": "7a1f", "spanID": "0001", "operationName": "compose_post_server", "references": [],
				    "startTime": 1700000000000000, "duration": 900, "processID": "p1",
				    "tags": [{"key": "span.kind", "type": "string", "value": "server"},
				             {"key": "http.status_code", "type": "int64", "value": 200},
				             {"key": "error", "type": "bool", "value": false}]},
				   {"traceID": "7a1f", "spanID": "0002", "operationName": "compose_text_client",
				    "references": [{"refType": "FOLLOWS_FROM", "traceID": "7a1f", "spanID": "0009"},
				                   {"refType": "CHILD_OF", "traceID": "7a1f", "spanID": "0001"}],
				    "startTime": 1700000000000010, "duration": 500, "processID": "p1",
				    "tags": [{"key": "span.kind", "type": "string", "value": "client"}]},
				   {"traceID": "7a1f", "spanID": "0003", "operationName": "compose_text_server",
				    "parentSpanID": "0002", "startTime": 1700000000000020, "duration": 400,
				    "process": {"serviceName": "text-service"}, "tags": []}],
				  "processes": {"p1": {"serviceName": "compose-post-service", "tags": []}}, "warnings": null}],
				 "total": 0, "limit": 0, "offset": 0, "errors": null}""";
		List<Span> spans = TraceFiles.read(this.dir, json, TraceFormat.JAEGER);
		assertThat(spans).containsExactly(
				new Span("7a1f", "0001", null, SpanKind.SERVER, "compose_post_server", "compose-post-service", null,
						null, 1_700_000_000_000_000_000L, 900_000L,
						Map.of("span.kind", "server", "http.status_code", "200", "error", "false")),
				new Span("7a1f", "0002", "0001", SpanKind.CLIENT, "compose_text_client", "compose-post-service", null,
						null, 1_700_000_000_000_010_000L, 500_000L, Map.of("span.kind", "client")),
				new Span("7a1f", "0003", "0002", SpanKind.INTERNAL, "compose_text_server", "text-service", null, null,
						1_700_000_000_000_020_000L, 400_000L, Map.of()));
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', quoteCharacter = '`',
			textBlock = """
					data not a list    | {"data": {}}                                                                   | data: expected an array, found {}
					no spans           | {"data": [{"traceID": "1"}]}                                                   | data[0]: field "spans": missing
					a missing span id  | {"data": [{"spans": [{"traceID": "1", "startTime": 1, "duration": 1}]}]}       | data[0].spans[0]: field "spanID": missing
					a bad start        | {"data": [{"spans": [{"traceID": "1", "spanID": "2", "startTime": "now", "duration": 1}]}]} | data[0].spans[0] (span 2): field "startTime": expected a whole number of microseconds, 0 or more, found "now"
					a bad reference    | {"data": [{"spans": [{"traceID": "1", "spanID": "2", "references": [{"refType": "CHILD_OF"}], "startTime": 1, "duration": 1}]}]} | data[0].spans[0] (span 2).references[0]: field "spanID": missing
					an unknown ref     | {"data": [{"spans": [{"traceID": "1", "spanID": "2", "references": [{"refType": "PARENT", "spanID": "1"}], "startTime": 1, "duration": 1}]}]} | data[0].spans[0] (span 2).references[0]: field "refType": expected CHILD_OF or FOLLOWS_FROM, found "PARENT"
					a tag without key  | {"data": [{"spans": [{"traceID": "1", "spanID": "2", "startTime": 1, "duration": 1, "tags": [{"value": "x"}]}]}]} | data[0].spans[0] (span 2): field "tags[0].key": expected a string, found nothing
					a list tag value   | {"data": [{"spans": [{"traceID": "1", "spanID": "2", "startTime": 1, "duration": 1, "tags": [{"key": "k", "value": [1]}]}]}]} | data[0].spans[0] (span 2): field "tags[0].value": expected a string, number or boolean, found [1]
					an unknown process | {"data": [{"spans": [{"traceID": "1", "spanID": "2", "startTime": 1, "duration": 1, "processID": "p9"}], "processes": {"p1": {"serviceName": "a"}}}]} | data[0].spans[0] (span 2): field "processID": no process "p9" in the trace's processes
					no process         | {"data": [{"spans": [{"traceID": "1", "spanID": "2", "startTime": 1, "duration": 1}]}]} | data[0].spans[0] (span 2): field "processID": missing
					a nameless process | {"data": [{"spans": [{"traceID": "1", "spanID": "2", "startTime": 1, "duration": 1, "processID": "p1"}], "processes": {"p1": {}}}]} | data[0].spans[0] (span 2): field "processID": the process has no serviceName
					""")
	void malformedSpansAreNamedWithTheirField(String what, String json, String message) throws Exception {
		assertThat(TraceFiles.error(this.dir, json, null)).isEqualTo(message);
	}

}
