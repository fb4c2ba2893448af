package io.pathfence.demo.run;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Writer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.zip.GZIPInputStream;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

import io.pathfence.cli.traces.MalformedTraceException;
import io.pathfence.cli.traces.TraceFile;
import io.pathfence.cli.traces.TraceFormat;

/**
 * The runner's own trace collector, on loopback: the services' Zipkin reporters POST
 * their spans to {@link #endpoint()} ({@code /api/v2/spans}, Zipkin v2 JSON, as a Zipkin
 * server takes them), and it keeps them for the run. A batch is checked by the same
 * reader {@code pathfence paths} reads trace files with, so what the collector writes
 * always reads back; a batch it cannot read is refused whole (400, naming the span and
 * the field) and the spans before and after it are kept. The spans go to a spool file,
 * one a line, not to the runner's small heap; it keeps at most {@link #MAX_SPANS},
 * counting any beyond them as dropped, so that a long run cannot fill the disk.
 */
final class TraceCollector implements AutoCloseable {

	/** Where Zipkin's API takes spans. */
	static final String PATH = "/api/v2/spans";

	/** The most spans kept: many minutes of the demo's load, traced whole. */
	static final int MAX_SPANS = 1_000_000;

	/**
	 * The largest batch taken, unzipped; a reporter's batches are far smaller, and a
	 * batch is held several times over while it is read, in the runner's small heap.
	 */
	static final int MAX_BATCH_BYTES = 2 * 1024 * 1024;

	/**
	 * How long no span must come before the reporters are taken to have sent all they
	 * held: longer than a reporter's interval between batches.
	 */
	static final Duration QUIET = Duration.ofMillis(2500);

	/** The longest wait for {@link #QUIET}: spans that still come after it are late. */
	static final Duration QUIET_WAIT = Duration.ofSeconds(15);

	private static final ObjectMapper JSON = JsonMapper.builder().build();

	private final HttpServer server;

	private final ExecutorService executor;

	/** Each kept span's JSON, one a line, in the order they came. */
	private final Path spool;

	private final FileChannel spoolChannel;

	private int spans;

	/** Where the spool ends, in bytes: where the next span goes. */
	private long spoolEnd;

	private final List<String> refusals = new ArrayList<>();

	private int refused;

	private long dropped;

	private long lastArrivalNanos = System.nanoTime();

	private TraceCollector(HttpServer server, ExecutorService executor, Path spool) throws IOException {
		this.server = server;
		this.executor = executor;
		this.spool = spool;
		this.spoolChannel = FileChannel.open(spool, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
				StandardOpenOption.TRUNCATE_EXISTING);
	}

	/**
	 * Starts a collector on a free loopback port.
	 * @param spool the file it keeps the spans in until they are written out
	 */
	static TraceCollector start(Path spool) throws IOException {
		HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
		ExecutorService executor = Executors.newFixedThreadPool(2,
				Thread.ofPlatform().daemon().name("traces-", 0).factory());
		TraceCollector collector = new TraceCollector(server, executor, spool);
		server.createContext("/", collector::handle);
		server.setExecutor(executor);
		server.start();
		return collector;
	}

	/** The URL the services' reporters send their spans to. */
	String endpoint() {
		return "http://127.0.0.1:" + this.server.getAddress().getPort() + PATH;
	}

	private void handle(HttpExchange exchange) throws IOException {
		try (exchange) {
			if (!exchange.getRequestURI().getPath().equals(PATH)) {
				answer(exchange, 404, "only " + PATH + " takes spans");
				return;
			}
			if (!"POST".equals(exchange.getRequestMethod())) {
				exchange.getResponseHeaders().set("Allow", "POST");
				answer(exchange, 405, "POST Zipkin v2 JSON spans to " + PATH);
				return;
			}
			byte[] body;
			try {
				body = body(exchange);
			}
			catch (IOException ex) {
				// Most often a body that says gzip and is not, or is cut short.
				refuse(exchange, 400, "the batch could not be read: " + ex);
				return;
			}
			if (body == null) {
				refuse(exchange, 413, "a batch of more than " + MAX_BATCH_BYTES + " bytes");
				return;
			}
			String problem = accept(new String(body, StandardCharsets.UTF_8));
			if (problem != null) {
				refuse(exchange, 400, problem);
				return;
			}
			answer(exchange, 202, "");
		}
	}

	/**
	 * Keeps the batch's spans, or says why it cannot: one Zipkin v2 JSON array, each span
	 * readable as {@code pathfence paths} reads it.
	 * @return null when kept, else the problem, naming the span and the field
	 */
	String accept(String batch) {
		JsonNode document;
		try {
			document = JSON.readTree(batch);
		}
		catch (JacksonException ex) {
			return "not JSON: " + ex.getOriginalMessage();
		}
		if (document == null || !document.isArray()) {
			return "expected a Zipkin v2 JSON array of spans";
		}
		try {
			TraceFile.parse(document, TraceFormat.ZIPKIN);
		}
		catch (MalformedTraceException ex) {
			return ex.getMessage();
		}
		List<String> texts = TraceFile.zipkinSpans(document).stream().map(JsonNode::toString).toList();
		synchronized (this) {
			int kept = Math.min(Math.max(0, MAX_SPANS - this.spans), texts.size());
			// JSON text holds no raw line break: one span a line. String.getBytes
			// replaces
			// what UTF-8 cannot encode (a lone surrogate from a JSON escape) instead of
			// failing, and the batch is written at the spool's end in one piece, the end
			// moved only once it is there: a failed write neither shifts later spans nor
			// leaves a half line behind, the next batch writes over it.
			ByteArrayOutputStream lines = new ByteArrayOutputStream();
			for (String text : texts.subList(0, kept)) {
				lines.writeBytes(text.getBytes(StandardCharsets.UTF_8));
				lines.write('\n');
			}
			ByteBuffer bytes = ByteBuffer.wrap(lines.toByteArray());
			try {
				long at = this.spoolEnd;
				while (bytes.hasRemaining()) {
					at += this.spoolChannel.write(bytes, at);
				}
			}
			catch (IOException ex) {
				return "the collector cannot keep spans: " + ex;
			}
			this.spoolEnd += bytes.limit();
			this.spans += kept;
			this.dropped += texts.size() - kept;
			this.lastArrivalNanos = System.nanoTime();
		}
		return null;
	}

	private void refuse(HttpExchange exchange, int status, String problem) throws IOException {
		synchronized (this) {
			this.refused++;
			if (this.refusals.size() < 10) {
				this.refusals.add(problem);
			}
		}
		// A slow client must not hold up the other batches.
		answer(exchange, status, problem);
	}

	/** The body, unzipped if it came gzipped; null when it is too large. */
	private static byte[] body(HttpExchange exchange) throws IOException {
		InputStream raw = exchange.getRequestBody();
		boolean gzipped = "gzip".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Content-Encoding"));
		// Closing the unzipping stream frees its native inflater now, not when it is
		// collected.
		try (InputStream in = gzipped ? new GZIPInputStream(raw) : raw) {
			ByteArrayOutputStream out = new ByteArrayOutputStream();
			byte[] buffer = new byte[8192];
			for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
				out.write(buffer, 0, read);
				if (out.size() > MAX_BATCH_BYTES) {
					return null;
				}
			}
			return out.toByteArray();
		}
	}

	private static void answer(HttpExchange exchange, int status, String text) throws IOException {
		byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
		exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
		exchange.sendResponseHeaders(status, (bytes.length == 0) ? -1 : bytes.length);
		if (bytes.length > 0) {
			exchange.getResponseBody().write(bytes);
		}
	}

	/** How many spans it keeps now. */
	synchronized int spanCount() {
		return this.spans;
	}

	/** Where the spans that come from now on will start: a mark for {@link #write}. */
	synchronized long mark() {
		return this.spoolEnd;
	}

	/** How many batches it refused. */
	synchronized int refusedBatches() {
		return this.refused;
	}

	/** Why it refused the first batches it refused. */
	synchronized List<String> refusals() {
		return List.copyOf(this.refusals);
	}

	/** How many spans came beyond {@link #MAX_SPANS}. */
	synchronized long droppedSpans() {
		return this.dropped;
	}

	/**
	 * Waits until no span has come for {@link #QUIET} (the reporters have sent what they
	 * held), or {@link #QUIET_WAIT} has passed.
	 */
	void awaitQuiet() throws InterruptedException {
		Duration quiet = QUIET;
		long deadline = System.nanoTime() + QUIET_WAIT.toNanos();
		while (System.nanoTime() < deadline) {
			long sinceLast;
			synchronized (this) {
				sinceLast = System.nanoTime() - this.lastArrivalNanos;
			}
			if (sinceLast >= quiet.toNanos()) {
				return;
			}
			Thread.sleep(Math.max(1, Math.min(quiet.minusNanos(sinceLast).toMillis(), 200)));
		}
	}

	/**
	 * Writes the spans kept since {@code mark} (0 for all) as one Zipkin v2 JSON array.
	 * @return how many it wrote
	 */
	int write(Path file, long mark) throws IOException {
		long end;
		synchronized (this) {
			end = this.spoolEnd;
		}
		int written = 0;
		try (InputStream in = Files.newInputStream(this.spool);
				BufferedReader spans = new BufferedReader(
						new InputStreamReader(new BoundedInputStream(in, mark, end), StandardCharsets.UTF_8));
				Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
			out.write("[");
			for (String span = spans.readLine(); span != null; span = spans.readLine()) {
				out.write((written == 0) ? "\n" : ",\n");
				out.write(span);
				written++;
			}
			out.write("\n]\n");
		}
		return written;
	}

	/**
	 * Writes every span kept to {@code file}, once the reporters have sent what they
	 * held, stops the collector, and says what it wrote.
	 */
	String finish(Path file) {
		try {
			awaitQuiet();
			int written = write(file, 0);
			return String.format("Traces: %d spans in %s (%d batches refused%s, %d spans beyond the cap)", written,
					file, refusedBatches(), refusals().isEmpty() ? "" : ", the first: " + refusals().get(0),
					droppedSpans());
		}
		catch (IOException ex) {
			return "Traces: could not write " + file + ": " + ex.getMessage();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return "Traces: not written, interrupted";
		}
		finally {
			close();
		}
	}

	@Override
	public void close() {
		this.server.stop(0);
		this.executor.shutdownNow();
		synchronized (this) {
			try {
				this.spoolChannel.close();
				Files.deleteIfExists(this.spool);
			}
			catch (IOException ex) {
				// Only a leftover file in the run's logs.
			}
		}
	}

	/** The bytes of a stream from {@code from} to {@code to}. */
	private static final class BoundedInputStream extends FilterInputStream {

		private long left;

		BoundedInputStream(InputStream in, long from, long to) throws IOException {
			super(in);
			in.skipNBytes(from);
			this.left = to - from;
		}

		@Override
		public int read() throws IOException {
			if (this.left <= 0) {
				return -1;
			}
			int b = super.read();
			if (b >= 0) {
				this.left--;
			}
			return b;
		}

		@Override
		public int read(byte[] buffer, int offset, int length) throws IOException {
			if (this.left <= 0) {
				return -1;
			}
			int read = super.read(buffer, offset, (int) Math.min(length, this.left));
			if (read > 0) {
				this.left -= read;
			}
			return read;
		}

	}

}
