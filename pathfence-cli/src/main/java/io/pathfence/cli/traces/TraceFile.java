package io.pathfence.cli.traces;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import io.pathfence.discovery.trace.InvalidTraceException;
import io.pathfence.discovery.trace.Span;
import io.pathfence.discovery.trace.TraceTree;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads the spans of a trace file: one JSON document, or several one after another (JSON
 * Lines, as the OpenTelemetry collector's file exporter writes), each in its own format
 * when none is given.
 */
public final class TraceFile {

	/** Reads one document at a time: what follows it is the next one, not an error. */
	private static final ObjectMapper JSON = JsonMapper.builder()
		.disable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
		.build();

	private TraceFile() {
	}

	/**
	 * The spans of {@code file}.
	 * @param format the format every document is in, or null to tell each by its shape
	 * @throws MalformedTraceException with one line naming the span and the field, or the
	 * line and column of a syntax error
	 * @throws IOException when the file cannot be read
	 */
	public static List<Span> read(Path file, TraceFormat format) throws MalformedTraceException, IOException {
		try (JsonParser parser = JSON.createParser(file)) {
			return read(parser, format);
		}
		catch (JacksonException ex) {
			if (ex.getCause() instanceof IOException io) {
				throw io;
			}
			throw syntax(ex);
		}
	}

	/**
	 * The spans of one document already read: what a collector receiving spans checks
	 * each batch with, so that the file it writes reads back.
	 * @param format the format the document is in, or null to tell by its shape
	 * @throws MalformedTraceException with one line naming the span and the field
	 */
	public static List<Span> parse(JsonNode document, TraceFormat format) throws MalformedTraceException {
		List<ReadSpan> spans = read(document, format, "");
		check(spans);
		return spans.stream().map(ReadSpan::span).toList();
	}

	/**
	 * The span objects of a Zipkin v2 document, a list of spans or a list of lists of
	 * spans, in the order {@link #parse} reads them.
	 */
	public static List<JsonNode> zipkinSpans(JsonNode document) {
		return ZipkinReader.elements(document, "").stream().map(ZipkinReader.Element::node).toList();
	}

	private static List<Span> read(JsonParser parser, TraceFormat format) throws MalformedTraceException {
		List<ReadSpan> spans = new ArrayList<>();
		int documents = 0;
		while (true) {
			JsonNode document = next(parser);
			if (document == null) {
				break;
			}
			documents++;
			spans.addAll(read(document, format, (documents == 1) ? "" : "document " + documents + ": "));
		}
		if (documents == 0) {
			throw new MalformedTraceException("holds no JSON");
		}
		check(spans);
		return spans.stream().map(ReadSpan::span).toList();
	}

	private static JsonNode next(JsonParser parser) {
		JsonNode document = JSON.readTree(parser);
		return (document == null || document.isMissingNode()) ? null : document;
	}

	private static List<ReadSpan> read(JsonNode document, TraceFormat format, String prefix)
			throws MalformedTraceException {
		TraceFormat found = TraceFormat.of(document);
		if (format == null && found == null) {
			throw new MalformedTraceException(prefix + "cannot tell the format: expected " + TraceFormat.ZIPKIN.shape()
					+ ", " + TraceFormat.JAEGER.shape() + " or " + TraceFormat.OTLP.shape() + ", found "
					+ JsonSpan.shown(document) + "; or give --format");
		}
		if (format != null && found != format) {
			throw new MalformedTraceException(prefix + "expected " + format.shape() + " (--format "
					+ format.name().toLowerCase(java.util.Locale.ROOT) + "), found " + JsonSpan.shown(document));
		}
		return switch (found) {
			case ZIPKIN -> ZipkinReader.read(document, prefix);
			case JAEGER -> JaegerReader.read(document, prefix);
			case OTLP -> OtlpReader.read(document, prefix);
		};
	}

	/**
	 * Spans that cannot form traces: an id used twice in a trace, or a cycle of parents.
	 */
	private static void check(List<ReadSpan> spans) throws MalformedTraceException {
		try {
			TraceTree.of(spans.stream().map(ReadSpan::span).toList());
		}
		catch (InvalidTraceException ex) {
			Map<Boolean, List<ReadSpan>> matching = spans.stream()
				.collect(Collectors.partitioningBy(
						(r) -> r.span().traceId().equals(ex.traceId()) && r.span().spanId().equals(ex.spanId())));
			List<ReadSpan> at = matching.get(true);
			// For a duplicate, the second one read; for a cycle, the span named.
			ReadSpan span = at.get(at.size() - 1);
			String field = ex.field().equals(TraceTree.ID) ? span.idField() : span.parentField();
			String problem = ex.field().equals(TraceTree.ID) ? "the id " + span.span().spanId()
					+ " is used twice in trace " + ex.traceId() + " (also at " + at.get(0).where() + ")" : ex.problem();
			throw new MalformedTraceException(span.where() + ": field \"" + field + "\": " + problem);
		}
	}

	private static MalformedTraceException syntax(JacksonException ex) {
		TokenStreamLocation location = ex.getLocation();
		String message = ex.getOriginalMessage();
		message = (message != null) ? message.lines().findFirst().orElse("").trim() : ex.getClass().getSimpleName();
		if (ex instanceof StreamReadException && location != null && location.getLineNr() > 0) {
			return new MalformedTraceException("not valid JSON at line " + location.getLineNr() + ", column "
					+ location.getColumnNr() + ": " + message);
		}
		return new MalformedTraceException("not valid JSON: " + message);
	}

}
