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

class OtlpReaderTests {

	@TempDir
	Path dir;

	@Test
	void readsResourceSpansWithTypedAttributesAndKindsAsNumbersOrNames() throws Exception {
		String json = """
				{"resourceSpans": [{
				  "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "orders"}}]},
				  "scopeSpans": [{"scope": {"name": "tomcat"}, "spans": [
				    {"traceId": "5B8EFFF798038103D269B633813FC60C", "spanId": "EEE19B7EC3C1B174", "parentSpanId": "",
				     "name": "POST /orders", "kind": "SPAN_KIND_SERVER",
				     "startTimeUnixNano": "1700000000000000000", "endTimeUnixNano": "1700000000002500000",
				     "attributes": [{"key": "http.route", "value": {"stringValue": "/orders"}},
				                    {"key": "http.response.status_code", "value": {"intValue": "201"}},
				                    {"key": "retry", "value": {"boolValue": false}},
				                    {"key": "ratio", "value": {"doubleValue": 0.5}},
				                    {"key": "tags", "value": {"arrayValue": {"values": [{"stringValue": "a"}, {"intValue": 2}]}}}]},
				    {"traceId": "5b8efff798038103d269b633813fc60c", "spanId": "0000000000000002",
				     "parentSpanId": "eee19b7ec3c1b174", "name": "POST", "kind": 3,
				     "startTimeUnixNano": 1700000000000100000, "endTimeUnixNano": "1700000000001100000"}]}]},
				 {"scopeSpans": [{"spans": [
				    {"traceId": "5b8efff798038103d269b633813fc60c", "spanId": "0000000000000003",
				     "parentSpanId": "0000000000000002", "startTimeUnixNano": "1700000000000200000",
				     "endTimeUnixNano": "1700000000000200000"}]}]}]}""";
		List<Span> spans = TraceFiles.read(this.dir, json, null);
		String trace = "5b8efff798038103d269b633813fc60c";
		assertThat(spans).containsExactly(
				new Span(trace, "eee19b7ec3c1b174", null, SpanKind.SERVER, "POST /orders", "orders", null, null,
						1_700_000_000_000_000_000L, 2_500_000L,
						Map.of("http.route", "/orders", "http.response.status_code", "201", "retry", "false", "ratio",
								"0.5", "tags", "a,2")),
				new Span(trace, "0000000000000002", "eee19b7ec3c1b174", SpanKind.CLIENT, "POST", "orders", null, null,
						1_700_000_000_000_100_000L, 1_000_000L, Map.of()),
				new Span(trace, "0000000000000003", "0000000000000002", SpanKind.INTERNAL, "",
						OtlpReader.UNKNOWN_SERVICE, null, null, 1_700_000_000_000_200_000L, 0L, Map.of()));
	}

	@Test
	void readsOneDocumentPerLineAsTheCollectorsFileExporterWritesThem() throws Exception {
		String line = """
				{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "01", "spanId": "%s", "startTimeUnixNano": "1", "endTimeUnixNano": "2"}]}]}]}
				""";
		assertThat(TraceFiles.read(this.dir, line.formatted("0a") + line.formatted("0b"), TraceFormat.OTLP))
			.extracting(Span::spanId)
			.containsExactly("0a", "0b");
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', quoteCharacter = '`',
			textBlock = """
					resources not a list | {"resourceSpans": 1}                                                          | resourceSpans: expected an array, found 1
					a bad scope list     | {"resourceSpans": [{"scopeSpans": {}}]}                                       | resourceSpans[0]: field "scopeSpans": expected an array, found {}
					a bad span id        | {"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "01", "spanId": "zz"}]}]}]} | resourceSpans[0].scopeSpans[0].spans[0]: field "spanId": expected a string of 1 to 16 hex digits, found "zz"
					a bad kind           | {"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "01", "spanId": "0a", "kind": 9}]}]}]} | resourceSpans[0].scopeSpans[0].spans[0] (span 0a): field "kind": expected 0 to 5 or SPAN_KIND_INTERNAL, _SERVER, _CLIENT, _PRODUCER, _CONSUMER, found 9
					a bad kind name      | {"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "01", "spanId": "0a", "kind": "SERVER"}]}]}]} | resourceSpans[0].scopeSpans[0].spans[0] (span 0a): field "kind": expected 0 to 5 or SPAN_KIND_INTERNAL, _SERVER, _CLIENT, _PRODUCER, _CONSUMER, found "SERVER"
					no start             | {"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "01", "spanId": "0a", "endTimeUnixNano": "2"}]}]}]} | resourceSpans[0].scopeSpans[0].spans[0] (span 0a): field "startTimeUnixNano": missing
					a bad start          | {"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "01", "spanId": "0a", "startTimeUnixNano": "1e9", "endTimeUnixNano": "2"}]}]}]} | resourceSpans[0].scopeSpans[0].spans[0] (span 0a): field "startTimeUnixNano": expected nanoseconds since the epoch as a string of digits, found "1e9"
					an overflowing end   | {"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "01", "spanId": "0a", "startTimeUnixNano": "1", "endTimeUnixNano": "99999999999999999999"}]}]}]} | resourceSpans[0].scopeSpans[0].spans[0] (span 0a): field "endTimeUnixNano": expected nanoseconds since the epoch as a string of digits, found "99999999999999999999"
					an end before start  | {"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "01", "spanId": "0a", "startTimeUnixNano": "5", "endTimeUnixNano": "2"}]}]}]} | resourceSpans[0].scopeSpans[0].spans[0] (span 0a): field "endTimeUnixNano": ends before startTimeUnixNano (2 < 5)
					an untyped attribute | {"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "01", "spanId": "0a", "startTimeUnixNano": "1", "endTimeUnixNano": "2", "attributes": [{"key": "a", "value": "x"}]}]}]}]} | resourceSpans[0].scopeSpans[0].spans[0] (span 0a): field "attributes[0].value": expected an AnyValue such as {"stringValue": "x"}, found "x"
					a bad resource       | {"resourceSpans": [{"resource": {"attributes": [{"key": 1}]}}]}               | resourceSpans[0].resource: field "attributes[0].key": expected a string, found 1
					""")
	void malformedSpansAreNamedWithTheirField(String what, String json, String message) throws Exception {
		assertThat(TraceFiles.error(this.dir, json, null)).isEqualTo(message);
	}

}
