package io.pathfence.whatif.agent;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The real {@code pause-agent} binary, as the pause-agent module builds it. Its path
 * comes from the build ({@code pathfence.pause-agent.binary}); without it the tests fail
 * saying how to build it rather than being skipped.
 */
public final class AgentBinary {

	private AgentBinary() {
	}

	/**
	 * The binary's path.
	 * @return an executable file
	 */
	public static Path path() {
		String property = System.getProperty("pathfence.pause-agent.binary");
		if (property == null) {
			throw new IllegalStateException("system property pathfence.pause-agent.binary is not set: run the tests "
					+ "through Maven (./mvnw -pl pathfence-whatif -am verify)");
		}
		Path binary = Path.of(property);
		if (!Files.isExecutable(binary)) {
			throw new IllegalStateException(binary
					+ " is not built: ./mvnw -pl pause-agent compile (or cargo build --release in pause-agent/)");
		}
		return binary;
	}

	/**
	 * The state letter of a process in /proc: R running, S sleeping, T stopped.
	 * @param pid the process
	 * @return its state
	 * @throws java.io.IOException if the process does not exist
	 */
	public static char processState(long pid) throws java.io.IOException {
		String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
		return stat.charAt(stat.lastIndexOf(')') + 2);
	}

}
