package io.pathfence.whatif.filter;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.pathfence.whatif.agent.PauseResult;
import io.pathfence.whatif.rounds.Pauser;

/**
 * Pays a service's rounds through the PathFence filter in front of it, for a service the
 * pause agent cannot wrap: each pause is a control request to the filter's rounds mode
 * ({@code pause.rounds}, see {@code envoy-filter/README.md}), {@code POST <control path>}
 * with the round and the pause in milliseconds. The filter then holds the service's new
 * requests until the pause ends; the work already admitted goes on, which is how this
 * mechanism differs from the agent's stop.
 * <p>
 * The filter answers at once and does not report how long it held requests, so
 * {@link #pause} waits out the pause itself, from the request's sending to the end the
 * filter answered ({@code paused_until_ms}, later than asked only when an earlier round's
 * pause was still on), and reports that as the time stopped. The filter takes whole
 * milliseconds: what rounding leaves over is carried into the next pause, so the pauses
 * add up to what was asked to within half a millisecond, and the carry is reported as the
 * oversleep. Calls on one pauser are serialised, as the coordinator makes them. Closing
 * it closes its HTTP client, whose threads and connections would otherwise outlive it.
 */
public final class FilterRoundsPauser implements Pauser, AutoCloseable {

	/** The round's number, each larger than the last. */
	public static final String ROUND_HEADER = "x-pathfence-round";

	/** The round's pause at this service, in milliseconds. */
	public static final String PAUSE_HEADER = "x-pathfence-pause-ms";

	/** The rounds' secret, when the filter is configured with one. */
	public static final String TOKEN_HEADER = "x-pathfence-token";

	/** How long the filter may take to answer: it answers without the service. */
	private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(5);

	private static final long MILLI = TimeUnit.MILLISECONDS.toNanos(1);

	private static final Pattern PAUSED_UNTIL = Pattern.compile("\"paused_until_ms\"\\s*:\\s*(\\d+)");

	private static final Pattern DETAIL = Pattern.compile("\"detail\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");

	private final HttpClient client;

	private final URI control;

	private final String token;

	/** Asked for and not yet paid, or paid beyond what was asked when negative. */
	private long owedNanos;

	/**
	 * A pauser for the filter whose control request goes to {@code control}.
	 * @param control the sidecar's listener and the filter's
	 * {@code pause.rounds.control_path}, e.g.
	 * {@code http://127.0.0.1:10000/.pathfence/round}
	 * @param token the filter's {@code pause.rounds.token}, or null when it has none
	 */
	public FilterRoundsPauser(URI control, String token) {
		this.control = Objects.requireNonNull(control, "control");
		this.token = token;
		this.client = HttpClient.newBuilder()
			.version(HttpClient.Version.HTTP_1_1)
			.connectTimeout(ANSWER_TIMEOUT)
			.build();
	}

	/**
	 * Starts the round at the filter and returns once its pause has ended.
	 * @param round the round, newer than any this filter started
	 * @param nanos the pause asked for
	 * @return the pause as far as the filter tells it
	 * @throws FilterRoundsException if the filter refused: {@code 409} a round not newer
	 * than its last, {@code 400} a bad header or a pause over its {@code max_pause_ms},
	 * {@code 403} a missing or wrong token, {@code 405} another method, {@code 503} the
	 * pause could not be shared between its workers; or any other answer
	 * @throws IOException if the filter could not be reached
	 */
	@Override
	public synchronized PauseResult pause(long round, long nanos) throws IOException {
		if (nanos < 0) {
			throw new IllegalArgumentException("a pause cannot be negative: " + nanos + " ns");
		}
		long owed = this.owedNanos + nanos;
		long pauseMs = Math.max(0, Math.floorDiv(owed + MILLI / 2, MILLI));
		HttpRequest.Builder request = HttpRequest.newBuilder(this.control)
			.timeout(ANSWER_TIMEOUT)
			.header(ROUND_HEADER, Long.toString(round))
			.header(PAUSE_HEADER, Long.toString(pauseMs))
			.POST(HttpRequest.BodyPublishers.noBody());
		if (this.token != null) {
			request.header(TOKEN_HEADER, this.token);
		}
		long sentNanos = System.nanoTime();
		long sentWallMs = System.currentTimeMillis();
		HttpResponse<String> answer = send(request.build(), round);
		if (answer.statusCode() != 200) {
			throw refusal(round, pauseMs, answer);
		}
		Matcher until = PAUSED_UNTIL.matcher(answer.body());
		if (!until.find()) {
			throw new FilterRoundsException(200, "the filter at " + this.control + " started round " + round
					+ " but its answer has no paused_until_ms: " + answer.body());
		}
		// The hold ends at the later of the pause asked and the one the filter answered
		// (an earlier round's still on), on this clock rather than the wall clock's
		// milliseconds.
		long heldNanos = Math.max(pauseMs, Long.parseLong(until.group(1)) - sentWallMs) * MILLI;
		long endNanos = sentNanos + heldNanos;
		for (long left = endNanos - System.nanoTime(); left > 0; left = endNanos - System.nanoTime()) {
			LockSupport.parkNanos(left);
			if (Thread.interrupted()) {
				Thread.currentThread().interrupt();
				throw new IOException("interrupted while round " + round + "'s pause was on at " + this.control);
			}
		}
		this.owedNanos = owed - pauseMs * MILLI;
		return new PauseResult(round, nanos, pauseMs * MILLI, heldNanos, -this.owedNanos, sentNanos);
	}

	/**
	 * Closes its HTTP client once a control request in flight has been answered; a pause
	 * asked for after fails.
	 */
	@Override
	public void close() {
		// The library is built for Java 17, whose HttpClient cannot be closed and whose
		// threads end once it is collected; from Java 21 on it is AutoCloseable.
		if (this.client instanceof AutoCloseable closeable) {
			try {
				closeable.close();
			}
			catch (Exception ex) {
				// Closing only lets go of its threads and connections sooner.
			}
		}
	}

	private HttpResponse<String> send(HttpRequest request, long round) throws IOException {
		try {
			return this.client.send(request, HttpResponse.BodyHandlers.ofString());
		}
		catch (HttpTimeoutException ex) {
			throw new IOException(
					"the filter at " + this.control + " did not answer round " + round + " within " + ANSWER_TIMEOUT,
					ex);
		}
		catch (IOException ex) {
			throw new IOException("cannot reach the filter at " + this.control + " for round " + round + ": "
					+ Objects.requireNonNullElse(ex.getMessage(), ex.getClass().getSimpleName()), ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IOException("interrupted while sending round " + round + " to " + this.control, ex);
		}
	}

	private FilterRoundsException refusal(long round, long pauseMs, HttpResponse<String> answer) {
		int status = answer.statusCode();
		Matcher detail = DETAIL.matcher(answer.body());
		String said = detail.find() ? detail.group(1).replace("\\\"", "\"").replace("\\\\", "\\")
				: answer.body().strip();
		String why = switch (status) {
			case 409 -> "refused round " + round + " as not newer than the last one it started";
			case 400 -> "refused round " + round + "'s control request (pause " + pauseMs
					+ " ms; over the filter's pause.rounds.max_pause_ms?)";
			case 403 -> "refused round " + round + " without the rounds' token (pause.rounds.token)";
			case 405 -> "refused round " + round + "'s method";
			case 503 -> "could not start round " + round;
			case 404 -> "answered 404 to round " + round
					+ ": the control request reached the service, so the filter is not in rounds mode at this path";
			default -> "answered " + status + " to round " + round + ", not a started round";
		};
		return new FilterRoundsException(status,
				"the filter at " + this.control + " " + why + (said.isEmpty() ? "" : ": " + said));
	}

}
