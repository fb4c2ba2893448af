package io.pathfence.whatif.agent;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * A service started under a pause agent: {@code pause-agent --port-file F -- command...}.
 * Closing it sends the agent SIGTERM, which continues the service if it is paused and
 * passes the signal on; the service is killed if it has not exited within the grace time.
 */
public final class PauseAgentProcess implements AutoCloseable {

	private static final Duration GRACE = Duration.ofSeconds(10);

	private final Process process;

	private final int port;

	private final long childPid;

	private PauseAgentProcess(Process process, int port, long childPid) {
		this.process = process;
		this.port = port;
		this.childPid = childPid;
	}

	/**
	 * Starts {@code command} under the agent and waits until the agent answers.
	 * @param agent the {@code pause-agent} binary
	 * @param agentOptions options for the agent, such as {@code --max-pause-ms 500}
	 * @param command the service's command line
	 * @param builder where the output goes, and the working folder and environment; its
	 * command is replaced
	 * @param timeout how long to wait for the agent's control port
	 * @return the running agent
	 * @throws IOException if the agent cannot start, or exits first (its message is in
	 * its standard error, as {@code builder} redirects it)
	 */
	public static PauseAgentProcess start(Path agent, List<String> agentOptions, List<String> command,
			ProcessBuilder builder, Duration timeout) throws IOException {
		Objects.requireNonNull(agent, "agent");
		if (command.isEmpty()) {
			throw new IllegalArgumentException("no command to run under the pause agent");
		}
		if (!Files.isExecutable(agent)) {
			throw new IOException("the pause agent " + agent + " is not an executable file (build it: ./mvnw -pl "
					+ "pause-agent compile)");
		}
		Path portFile = Files.createTempFile("pause-agent-", ".port");
		Files.delete(portFile);
		List<String> line = new ArrayList<>();
		line.add(agent.toString());
		line.addAll(agentOptions);
		line.add("--port-file");
		line.add(portFile.toString());
		line.add("--");
		line.addAll(command);
		Process process = builder.command(line).start();
		try {
			int port = awaitPort(process, portFile, timeout);
			try (PauseAgentClient client = PauseAgentClient.connect(port)) {
				return new PauseAgentProcess(process, port, client.stats().childPid());
			}
			catch (IOException ex) {
				// The port file is written before the command starts: a command that
				// cannot start ends the agent after it.
				if (process.waitFor(1, TimeUnit.SECONDS)) {
					throw exited(process, ex);
				}
				throw ex;
			}
		}
		catch (IOException | RuntimeException ex) {
			process.destroyForcibly();
			throw ex;
		}
		catch (InterruptedException ex) {
			process.destroyForcibly();
			Thread.currentThread().interrupt();
			throw new IOException("interrupted while the pause agent started", ex);
		}
		finally {
			Files.deleteIfExists(portFile);
		}
	}

	private static int awaitPort(Process process, Path portFile, Duration timeout)
			throws IOException, InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (true) {
			try {
				return Integer.parseInt(Files.readString(portFile).trim());
			}
			catch (NoSuchFileException ex) {
				// Not listening yet.
			}
			if (!process.isAlive()) {
				throw exited(process, null);
			}
			if (System.nanoTime() > deadline) {
				throw new IOException("the pause agent wrote no control port within " + timeout);
			}
			Thread.sleep(10);
		}
	}

	private static IOException exited(Process process, IOException cause) {
		return new IOException("the pause agent exited with status " + process.exitValue()
				+ " before it answered; its standard error says why", cause);
	}

	/**
	 * The agent's control port on the loopback interface.
	 * @return the port
	 */
	public int port() {
		return this.port;
	}

	/**
	 * The service's process id, which is also its process group's.
	 * @return the child's pid
	 */
	public long childPid() {
		return this.childPid;
	}

	/**
	 * The agent's process; it exits with the service's status.
	 * @return the process
	 */
	public Process process() {
		return this.process;
	}

	/**
	 * A new connection to the agent.
	 * @return a client of its own
	 * @throws IOException if the agent does not answer
	 */
	public PauseAgentClient connect() throws IOException {
		return PauseAgentClient.connect(this.port);
	}

	/**
	 * Stops the service through the agent (SIGTERM, passed on after the service is
	 * continued), and kills both if they have not exited within ten seconds.
	 */
	@Override
	public void close() {
		this.process.destroy();
		try {
			if (!this.process.waitFor(GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
				ProcessHandle.of(this.childPid).ifPresent(ProcessHandle::destroyForcibly);
				this.process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
			}
		}
		catch (InterruptedException ex) {
			ProcessHandle.of(this.childPid).ifPresent(ProcessHandle::destroyForcibly);
			this.process.destroyForcibly();
			Thread.currentThread().interrupt();
		}
	}

}
