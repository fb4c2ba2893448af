package io.pathfence.discovery.trace;

/**
 * Spans that cannot form a trace: an id used twice, or parents that form a cycle. Names
 * the span and the field, so that a reader can point at the span in its file.
 */
public class InvalidTraceException extends IllegalArgumentException {

	private static final long serialVersionUID = 1L;

	private final String traceId;

	private final String spanId;

	private final String field;

	private final String problem;

	public InvalidTraceException(String traceId, String spanId, String field, String problem) {
		super("span " + spanId + " of trace " + traceId + ": " + field + ": " + problem);
		this.traceId = traceId;
		this.spanId = spanId;
		this.field = field;
		this.problem = problem;
	}

	public String traceId() {
		return this.traceId;
	}

	public String spanId() {
		return this.spanId;
	}

	/** Which of the span's fields is wrong: {@code id} or {@code parent}. */
	public String field() {
		return this.field;
	}

	public String problem() {
		return this.problem;
	}

}
