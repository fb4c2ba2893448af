package io.pathfence.demo.run;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPOutputStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pathfence.cli.traces.TraceFile;
import io.pathfence.cli.traces.TraceFormat;
import io.pathfence.discovery.trace.Span;
import io.pathfence.discovery.trace.SpanKind;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The runner's collector over real HTTP: it keeps the Zipkin v2 batches the services'
 * reporters POST and writes them as one file that {@code pathfence paths}' reader reads
 * back; a batch it cannot read is refused, naming the field, and costs the run nothing.
 */
class TraceCollectorTests {

	private static final String TRACE = "463ac35c9f6413ad48485a3953bb6124";

	@TempDir
	Path folder;

	private TraceCollector collector;

	private final HttpClient client = HttpClient.newHttpClient();

	@BeforeEach
	void start() throws Exception {
		this.collector = TraceCollector.start(this.folder.resolve("traces.spool"));
	}

	@AfterEach
	void stop() {
		this.collector.close();
	}

	@Test
	void keepsEachBatchAndWritesThemAsOneFileThePathsCommandReads() throws Exception {
		assertThat(post(ZipkinSpans.batch(server("a1", null, "orders"), client("a2", "a1", "orders", "payment")))
			.statusCode()).isEqualTo(202);
		assertThat(postGzipped(ZipkinSpans.batch(client("a3", "a1", "orders", "shipping"))).statusCode())
			.isEqualTo(202);

		Path file = this.folder.resolve("traces.json");
		assertThat(this.collector.write(file, 0)).isEqualTo(3);

		List<Span> spans = TraceFile.read(file, TraceFormat.ZIPKIN);
		assertThat(spans).extracting(Span::spanId)
			.containsExactly("00000000000000a1", "00000000000000a2", "00000000000000a3");
		assertThat(spans.get(0).kind()).isEqualTo(SpanKind.SERVER);
		assertThat(spans.get(0).tag("uri")).isEqualTo("/orders");
		assertThat(spans.get(2).remoteService()).isEqualTo("shipping");
		assertThat(spans.get(2).parentId()).isEqualTo("00000000000000a1");
	}

	@Test
	void writesOnlyTheSpansSinceAMark() throws Exception {
		post(ZipkinSpans.batch(server("b1", null, "orders")));
		long mark = this.collector.mark();
		post(ZipkinSpans.batch(server("b2", null, "orders"), client("b3", "b2", "orders", "carts")));

		Path file = this.folder.resolve("since.json");
		assertThat(this.collector.write(file, mark)).isEqualTo(2);
		assertThat(TraceFile.read(file, TraceFormat.ZIPKIN)).extracting(Span::spanId)
			.containsExactly("00000000000000b2", "00000000000000b3");
	}

	@Test
	void refusesWhatItCannotReadNamingTheFieldAndKeepsTheRestOfTheRun() throws Exception {
		post(ZipkinSpans.batch(server("c1", null, "orders")));

		HttpResponse<String> notJson = post("spans, honestly");
		HttpResponse<String> notAnArray = post("{\"traceId\": \"" + TRACE + "\"}");
		HttpResponse<String> noTraceId = post("[{\"id\": \"00000000000000c2\", \"kind\": \"SERVER\", "
				+ "\"localEndpoint\": {\"serviceName\": \"orders\"}}]");
		HttpResponse<String> badKind = post(
				ZipkinSpans.batch(server("c3", null, "orders").replace("SERVER", "SERVING")));

		assertThat(List.of(notJson, notAnArray, noTraceId, badKind))
			.allSatisfy((response) -> assertThat(response.statusCode()).as(response.body()).isEqualTo(400));
		assertThat(notJson.body()).contains("not JSON");
		assertThat(notAnArray.body()).contains("array");
		assertThat(noTraceId.body()).contains("traceId");
		assertThat(badKind.body()).contains("kind").contains("SERVING");

		assertThat(post(ZipkinSpans.batch(client("c4", "c1", "orders", "payment"))).statusCode()).isEqualTo(202);
		assertThat(this.collector.refusedBatches()).isEqualTo(4);
		assertThat(this.collector.refusals()).hasSize(4);
		Path file = this.folder.resolve("traces.json");
		assertThat(this.collector.write(file, 0)).isEqualTo(2);
		assertThat(TraceFile.read(file, TraceFormat.ZIPKIN)).extracting(Span::spanId)
			.containsExactly("00000000000000c1", "00000000000000c4");
	}

	@Test
	void aSpanUtf8CannotEncodeNeitherStopsTheCollectorNorShiftsTheSpansAfterIt() throws Exception {
		// A JSON escape of half a surrogate pair is valid JSON but no UTF-8: a writer
		// that refuses it once kept refusing every later batch.
		String loneSurrogate = server("d1", null, "orders").replace("\"tags\": {", "\"tags\": {\"odd\": \"\\ud800\", ");
		assertThat(post(ZipkinSpans.batch(loneSurrogate)).statusCode()).isEqualTo(202);
		long mark = this.collector.mark();
		assertThat(post(ZipkinSpans.batch(client("d2", "d1", "orders", "payment"))).statusCode()).isEqualTo(202);

		Path all = this.folder.resolve("all.json");
		assertThat(this.collector.write(all, 0)).isEqualTo(2);
		assertThat(TraceFile.read(all, TraceFormat.ZIPKIN)).extracting(Span::spanId)
			.containsExactly("00000000000000d1", "00000000000000d2");
		Path since = this.folder.resolve("since.json");
		assertThat(this.collector.write(since, mark)).isEqualTo(1);
		assertThat(TraceFile.read(since, TraceFormat.ZIPKIN)).extracting(Span::spanId)
			.containsExactly("00000000000000d2");
	}

	@Test
	void aBatchThatSaysGzipAndIsNotIsRefusedAndCounted() throws Exception {
		HttpResponse<String> notGzip = this.client.send(HttpRequest.newBuilder(URI.create(this.collector.endpoint()))
			.header("Content-Type", "application/json")
			.header("Content-Encoding", "gzip")
			.POST(HttpRequest.BodyPublishers.ofString(ZipkinSpans.batch(server("e1", null, "orders"))))
			.build(), HttpResponse.BodyHandlers.ofString());

		assertThat(notGzip.statusCode()).isEqualTo(400);
		assertThat(notGzip.body()).contains("could not be read");
		assertThat(this.collector.refusedBatches()).isEqualTo(1);
		assertThat(post(ZipkinSpans.batch(server("e2", null, "orders"))).statusCode()).isEqualTo(202);
	}

	@Test
	void takesSpansOnlyWhereZipkinsApiDoes() throws Exception {
		HttpResponse<String> elsewhere = this.client.send(
				HttpRequest.newBuilder(URI.create(this.collector.endpoint().replace("/api/v2/spans", "/api/v1/spans")))
					.POST(HttpRequest.BodyPublishers.ofString("[]"))
					.build(),
				HttpResponse.BodyHandlers.ofString());
		HttpResponse<String> get = this.client.send(
				HttpRequest.newBuilder(URI.create(this.collector.endpoint())).build(),
				HttpResponse.BodyHandlers.ofString());

		assertThat(elsewhere.statusCode()).isEqualTo(404);
		assertThat(get.statusCode()).isEqualTo(405);
		assertThat(this.collector.spanCount()).isZero();
	}

	private HttpResponse<String> post(String body) throws Exception {
		return this.client.send(HttpRequest.newBuilder(URI.create(this.collector.endpoint()))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	private HttpResponse<String> postGzipped(String body) throws Exception {
		ByteArrayOutputStream zipped = new ByteArrayOutputStream();
		try (GZIPOutputStream out = new GZIPOutputStream(zipped)) {
			out.write(body.getBytes(StandardCharsets.UTF_8));
		}
		return this.client.send(HttpRequest.newBuilder(URI.create(this.collector.endpoint()))
			.header("Content-Type", "application/json")
			.header("Content-Encoding", "gzip")
			.POST(HttpRequest.BodyPublishers.ofByteArray(zipped.toByteArray()))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	private static String server(String id, String parent, String service) {
		return ZipkinSpans.server(TRACE, id, parent, service, "POST", "/orders");
	}

	private static String client(String id, String parent, String service, String callee) {
		return ZipkinSpans.client(TRACE, id, parent, service, callee);
	}

}
