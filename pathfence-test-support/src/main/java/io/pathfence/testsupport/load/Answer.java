package io.pathfence.testsupport.load;

/**
 * What came back for one request.
 *
 * @param status the HTTP status, or {@code 0} when nothing came back
 * @param fencedPath on a 503, the path the fence named in {@code x-pathfence-path}, else
 * {@code null}
 * @param reason on a 503, the {@code reason} of the fence's problem body
 * ({@code queue-full}, {@code timeout}), else {@code null}
 */
public record Answer(int status, String fencedPath, String reason) {

	/** No answer: the connection failed or the request timed out. */
	public static final Answer NONE = new Answer(0, null, null);

	/** An answer of which only the status is known. */
	public static Answer ofStatus(int status) {
		return new Answer(status, null, null);
	}

	public Outcome outcome() {
		return (this.status == 0) ? Outcome.CONNECTION_OR_TIMEOUT : Outcome.ofStatus(this.status);
	}

}
