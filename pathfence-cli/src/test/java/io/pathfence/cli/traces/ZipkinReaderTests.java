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

class ZipkinReaderTests {

	@TempDir
	Path dir;

	private static final String SERVER = """
			{"traceId": "5B8EFFF798038103D269B633813FC60C", "id": "eee19b7ec3c1b174", "kind": "SERVER",
			 "name": "post /orders", "timestamp": 1700000000000000, "duration": 2500,
			 "localEndpoint": {"serviceName": "orders", "ipv4": "10.0.0.1"},
			 "tags": {"http.method": "POST", "http.route": "/orders", "http.status_code": 200}}""";

	private static final String CLIENT = """
			{"traceId": "5b8efff798038103d269b633813fc60c", "id": "0000000000000002",
			 "parentId": "eee19b7ec3c1b174", "kind": "CLIENT", "name": "post", "timestamp": 1700000000000100,
			 "duration": 1000, "localEndpoint": {"serviceName": "orders"},
			 "remoteEndpoint": {"serviceName": "payment", "ipv4": "10.0.0.9", "port": 8080}}""";

	@Test
	void readsAListOfSpans() throws Exception {
		List<Span> spans = TraceFiles.read(this.dir, "[" + SERVER + "," + CLIENT + "]", null);
		assertThat(spans).containsExactly(
				new Span("5b8efff798038103d269b633813fc60c", "eee19b7ec3c1b174", null, SpanKind.SERVER, "post /orders",
						"orders", null, null, 1_700_000_000_000_000_000L, 2_500_000L,
						Map.of("http.method", "POST", "http.route", "/orders", "http.status_code", "200")),
				new Span("5b8efff798038103d269b633813fc60c", "0000000000000002", "eee19b7ec3c1b174", SpanKind.CLIENT,
						"post", "orders", "payment", "10.0.0.9:8080", 1_700_000_000_000_100_000L, 1_000_000L,
						Map.of()));
	}

	@Test
	void readsAListOfTracesAsZipkinsApiReturnsThem() throws Exception {
		assertThat(TraceFiles.read(this.dir, "[[" + SERVER + "],[" + CLIENT + "]]", TraceFormat.ZIPKIN)).hasSize(2);
	}

	@Test
	void aSharedServerSpanGetsAnIdOfItsOwnBelowItsClientSpan() throws Exception {
		String shared = """
				[{"traceId": "a1", "id": "0a", "kind": "CLIENT", "timestamp": 10, "duration": 100,
				  "localEndpoint": {"serviceName": "orders"}},
				 {"traceId": "a1", "id": "0a", "kind": "SERVER", "shared": true, "timestamp": 20, "duration": 80,
				  "localEndpoint": {"serviceName": "payment"}},
				 {"traceId": "a1", "id": "0b", "parentId": "0a", "kind": "CLIENT", "timestamp": 30, "duration": 10,
				  "localEndpoint": {"serviceName": "payment"}, "remoteEndpoint": {"serviceName": "bank"}}]""";
		List<Span> spans = TraceFiles.read(this.dir, shared, null);
		assertThat(spans).extracting(Span::spanId, Span::parentId, Span::service)
			.containsExactly(org.assertj.core.groups.Tuple.tuple("0a", null, "orders"),
					org.assertj.core.groups.Tuple.tuple("0a-shared", "0a", "payment"),
					org.assertj.core.groups.Tuple.tuple("0b", "0a-shared", "payment"));
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', quoteCharacter = '`',
			textBlock = """
					a missing id        | [{"traceId": "a1", "timestamp": 1, "duration": 1}]                                     | [0]: field "id": missing
					a bad id            | [{"traceId": "a1", "id": "xyz", "timestamp": 1, "duration": 1}]                        | [0]: field "id": expected a string of 1 to 16 hex digits, found "xyz"
					a long trace id     | [{"traceId": "123456789012345678901234567890123", "id": "1"}]                          | [0]: field "traceId": expected a string of 1 to 32 hex digits, found "123456789012345678901234567890123"
					a bad parent        | [{"traceId": "a1", "id": "1", "parentId": 7, "timestamp": 1, "duration": 1}]           | [0] (span 1): field "parentId": expected a string of 1 to 16 hex digits, found 7
					an unknown kind     | [{"traceId": "a1", "id": "1", "kind": "SERVR", "timestamp": 1, "duration": 1}]         | [0] (span 1): field "kind": expected CLIENT, SERVER, PRODUCER or CONSUMER, found "SERVR"
					no timestamp        | [{"traceId": "a1", "id": "1", "duration": 1}]                                          | [0] (span 1): field "timestamp": missing
					a text duration     | [{"traceId": "a1", "id": "1", "timestamp": 1, "duration": "5"}]                        | [0] (span 1): field "duration": expected a whole number of microseconds, 0 or more, found "5"
					a negative duration | [{"traceId": "a1", "id": "1", "timestamp": 1, "duration": -5}]                         | [0] (span 1): field "duration": expected a whole number of microseconds, 0 or more, found -5
					a fraction          | [{"traceId": "a1", "id": "1", "timestamp": 1.5, "duration": 1}]                        | [0] (span 1): field "timestamp": expected a whole number of microseconds, 0 or more, found 1.5
					a far timestamp     | [{"traceId": "a1", "id": "1", "timestamp": 9000000000000000, "duration": 1}]           | [0] (span 1): field "timestamp": expected at most 4611686018427387 microseconds, found 9000000000000000
					a bad service       | [{"traceId": "a1", "id": "1", "timestamp": 1, "duration": 1, "localEndpoint": {"serviceName": 3}}] | [0] (span 1): field "localEndpoint.serviceName": expected a string, found 3
					a bad endpoint      | [{"traceId": "a1", "id": "1", "timestamp": 1, "duration": 1, "remoteEndpoint": "payment"}] | [0] (span 1): field "remoteEndpoint": expected an object, found "payment"
					a bad port          | [{"traceId": "a1", "id": "1", "timestamp": 1, "duration": 1, "remoteEndpoint": {"ipv4": "1.2.3.4", "port": "80"}}] | [0] (span 1): field "remoteEndpoint.port": expected a port number, found "80"
					an object tag       | [{"traceId": "a1", "id": "1", "timestamp": 1, "duration": 1, "tags": {"http.route": {"a": 1}}}] | [0] (span 1): field "tags.http.route": expected a string, found {"a":1}
					a bad shared        | [{"traceId": "a1", "id": "1", "timestamp": 1, "duration": 1, "shared": "yes"}]         | [0] (span 1): field "shared": expected true or false, found "yes"
					a span not object   | [[{"traceId": "a1", "id": "1", "timestamp": 1, "duration": 1}, 42]]                    | [0][1]: expected an object, found 42
					an id used twice    | [{"traceId": "a1", "id": "1", "timestamp": 1, "duration": 1}, {"traceId": "a1", "id": "1", "timestamp": 1, "duration": 1}] | [1] (span 1): field "id": the id 1 is used twice in trace a1 (also at [0] (span 1))
					a cycle             | [{"traceId": "a1", "id": "1", "parentId": "2", "timestamp": 1, "duration": 1}, {"traceId": "a1", "id": "2", "parentId": "1", "timestamp": 1, "duration": 1}] | [0] (span 1): field "parentId": the span is its own ancestor (parents form a cycle)
					""")
	void malformedSpansAreNamedWithTheirField(String what, String json, String message) throws Exception {
		assertThat(TraceFiles.error(this.dir, json, null)).isEqualTo(message);
	}

}
