package io.pathfence.whatif.agent;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * One connection to a pause agent's control port, speaking its line protocol (see
 * {@code pause-agent/README.md}): {@code PAUSE <round> <nanoseconds>} and {@code STATS}.
 * A pause's reply comes once the service runs again, so {@link #pause} blocks for the
 * pause's length. Calls on one client are serialised; use a client per thread for pauses
 * in parallel on different agents.
 */
public final class PauseAgentClient implements AutoCloseable {

	/** How long a reply may take beyond the pause it answers. */
	private static final Duration REPLY_MARGIN = Duration.ofSeconds(10);

	private final Socket socket;

	private final BufferedReader in;

	private final OutputStream out;

	private PauseAgentClient(Socket socket) throws IOException {
		this.socket = socket;
		this.in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
		this.out = socket.getOutputStream();
	}

	/**
	 * Connects to an agent on the loopback interface.
	 * @param port its control port
	 * @return the connected client
	 * @throws IOException if the agent does not answer the connection
	 */
	public static PauseAgentClient connect(int port) throws IOException {
		return connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
	}

	/**
	 * Connects to an agent.
	 * @param address its control address
	 * @return the connected client
	 * @throws IOException if the agent does not answer the connection
	 */
	public static PauseAgentClient connect(InetSocketAddress address) throws IOException {
		Socket socket = new Socket();
		try {
			socket.setTcpNoDelay(true);
			socket.connect(address, (int) REPLY_MARGIN.toMillis());
			return new PauseAgentClient(socket);
		}
		catch (IOException ex) {
			socket.close();
			throw new IOException("cannot reach the pause agent at " + address + ": " + ex.getMessage(), ex);
		}
	}

	/**
	 * Pauses the agent's service for a round and returns once it runs again.
	 * @param round the round, newer than any this agent paused for
	 * @param nanos the pause asked for; the agent takes the oversleep of earlier pauses
	 * off it
	 * @return the pause as the agent reports it
	 * @throws PauseAgentException if the agent refused (the round is not newer, the pause
	 * is over its limit, the service is exiting)
	 * @throws IOException if the connection failed
	 */
	public synchronized PauseResult pause(long round, long nanos) throws IOException {
		Map<String, String> reply = request("PAUSE " + round + " " + nanos, Duration.ofNanos(nanos).plus(REPLY_MARGIN),
				"PAUSED");
		return new PauseResult(number(reply, "round"), number(reply, "requested_ns"), number(reply, "target_ns"),
				number(reply, "stopped_ns"), number(reply, "oversleep_ns"), number(reply, "at_ns"));
	}

	/**
	 * The agent's totals.
	 * @return its statistics
	 * @throws IOException if the connection failed or the reply is malformed
	 */
	public synchronized AgentStats stats() throws IOException {
		Map<String, String> reply = request("STATS", REPLY_MARGIN, "STATS");
		return new AgentStats(number(reply, "child_pid"), number(reply, "pauses"), number(reply, "requested_ns"),
				number(reply, "stopped_ns"), number(reply, "oversleep_ns"), number(reply, "last_round"));
	}

	private Map<String, String> request(String command, Duration timeout, String expected) throws IOException {
		this.socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
		this.out.write((command + "\n").getBytes(StandardCharsets.US_ASCII));
		this.out.flush();
		String line;
		try {
			line = this.in.readLine();
		}
		catch (SocketTimeoutException ex) {
			throw new IOException("the pause agent did not answer '" + command + "' within " + timeout, ex);
		}
		if (line == null) {
			throw new IOException("the pause agent closed the connection instead of answering '" + command + "'");
		}
		if (line.startsWith("ERR ")) {
			throw new PauseAgentException(line.substring(4));
		}
		String[] words = line.split(" ");
		if (words[0].equals("STALE")) {
			throw new PauseAgentException("stale round: " + line.substring(6));
		}
		if (!words[0].equals(expected)) {
			throw new PauseAgentException("unexpected reply to '" + command + "': " + line);
		}
		Map<String, String> fields = new HashMap<>();
		for (int i = 1; i < words.length; i++) {
			int equals = words[i].indexOf('=');
			if (equals > 0) {
				fields.put(words[i].substring(0, equals), words[i].substring(equals + 1));
			}
		}
		fields.put("", line);
		return fields;
	}

	private static long number(Map<String, String> reply, String field) throws PauseAgentException {
		String value = reply.get(field);
		if (value == null) {
			throw new PauseAgentException("reply without '" + field + "': " + reply.get(""));
		}
		try {
			return Long.parseLong(value);
		}
		catch (NumberFormatException ex) {
			throw new PauseAgentException("reply with a malformed '" + field + "': " + reply.get(""));
		}
	}

	/**
	 * Closes the connection; the agent and its service keep running. A pause this
	 * connection asked for and that is still in progress ends at once: the agent
	 * continues the service when the connection that asked for a pause goes away, so a
	 * coordinator that stops, or dies, leaves no service stopped.
	 * @throws IOException if closing the socket failed
	 */
	@Override
	public void close() throws IOException {
		this.socket.close();
	}

}
