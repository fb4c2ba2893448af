package io.pathfence.benchmarks.starter;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The saturating load: <a href="https://github.com/wg/wrk">wrk</a> in a closed loop,
 * every connection sending its next request as soon as the last is answered, the routes
 * taken in turn. wrk drives all the connections from one thread, so the load generator
 * takes as little of the machine as a client can.
 */
final class Wrk {

	private static final Pattern REQUESTS = Pattern.compile("^\\s*(\\d+) requests in ", Pattern.MULTILINE);

	private static final Pattern RATE = Pattern.compile("^Requests/sec:\\s*([\\d.]+)", Pattern.MULTILINE);

	private static final Pattern NON_2XX = Pattern.compile("^\\s*Non-2xx or 3xx responses:\\s*(\\d+)",
			Pattern.MULTILINE);

	private static final Pattern SOCKET_ERRORS = Pattern
		.compile("^\\s*Socket errors: connect (\\d+), read (\\d+), write (\\d+), timeout (\\d+)", Pattern.MULTILINE);

	private final int connections;

	private final Path script;

	private final ProcessRegistry processes;

	/**
	 * @param routes request paths, taken in turn by all connections together
	 * @param workDirectory where the Lua script that rotates the routes is written
	 */
	Wrk(int connections, List<String> routes, Path workDirectory, ProcessRegistry processes) throws IOException {
		this.connections = connections;
		this.processes = processes;
		String paths = routes.stream().map((r) -> "\"" + r + "\"").collect(Collectors.joining(", "));
		this.script = workDirectory.resolve("routes.lua");
		Files.writeString(this.script, """
				-- Written by the starter benchmark: the routes in turn, over all connections.
				local paths = {%s}
				local i = 0
				request = function()
				  i = i %% #paths + 1
				  return wrk.format("GET", paths[i])
				end
				""".formatted(paths), StandardCharsets.UTF_8);
	}

	/** Runs wrk for {@code length} against the service on {@code port}; its figures. */
	Measure run(int port, Duration length) throws IOException, InterruptedException {
		return run(port, length, this.connections);
	}

	/** As {@link #run(int, Duration)}, on {@code connections} connections. */
	Measure run(int port, Duration length, int connections) throws IOException, InterruptedException {
		String output = runWrk(port, length, connections);
		long total = Long.parseLong(find(REQUESTS, output, 1));
		long non2xx = Optional.ofNullable(findOrNull(NON_2XX, output, 1)).map(Long::parseLong).orElse(0L);
		long socketErrors = 0;
		Matcher errors = SOCKET_ERRORS.matcher(output);
		if (errors.find()) {
			for (int g = 1; g <= 4; g++) {
				socketErrors += Long.parseLong(errors.group(g));
			}
		}
		double rate = Double.parseDouble(find(RATE, output, 1));
		long answered = total - non2xx;
		return new Measure(rate * answered / Math.max(1, total), percentile(output, "50%"), percentile(output, "99%"),
				0, answered, non2xx + socketErrors);
	}

	private String runWrk(int port, Duration length, int connections) throws IOException, InterruptedException {
		Process wrk = this.processes
			.start(new ProcessBuilder("wrk", "-t1", "-c" + connections, "-d" + length.toSeconds() + "s", "--latency",
					"-s", this.script.toString(), "http://127.0.0.1:" + port + "/")
				.redirectErrorStream(true));
		try {
			String output = new String(wrk.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			if (wrk.waitFor() != 0) {
				throw new IOException("wrk failed:\n" + output);
			}
			return output;
		}
		finally {
			this.processes.forget(wrk);
		}
	}

	/** A latency percentile of wrk's {@code --latency} report, in microseconds. */
	private static double percentile(String output, String label) throws IOException {
		Matcher m = Pattern.compile("^\\s*" + Pattern.quote(label) + "\\s+([\\d.]+)(us|ms|s)\\s*$", Pattern.MULTILINE)
			.matcher(output);
		if (!m.find()) {
			throw new IOException("no " + label + " latency in wrk's report:\n" + output);
		}
		double value = Double.parseDouble(m.group(1));
		return switch (m.group(2)) {
			case "us" -> value;
			case "ms" -> value * 1e3;
			default -> value * 1e6;
		};
	}

	private static String find(Pattern pattern, String output, int group) throws IOException {
		String found = findOrNull(pattern, output, group);
		if (found == null) {
			throw new IOException("unexpected wrk report (" + pattern + "):\n" + output);
		}
		return found;
	}

	private static String findOrNull(Pattern pattern, String output, int group) {
		Matcher m = pattern.matcher(output);
		return m.find() ? m.group(group) : null;
	}

}
