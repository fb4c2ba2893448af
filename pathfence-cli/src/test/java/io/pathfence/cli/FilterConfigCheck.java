package io.pathfence.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The filter's own configuration parser and classifier, run natively: a small tool
 * (src/test/rust/filter-config-check) linked with the envoy-filter crate, built with
 * cargo into this module's target folder on first use.
 */
final class FilterConfigCheck {

	private static final Path CRATE = Path.of("src/test/rust/filter-config-check").toAbsolutePath();

	private static final Path TARGET = Path.of("target/filter-config-check").toAbsolutePath();

	private static Path binary;

	private FilterConfigCheck() {
	}

	/**
	 * What the tool printed and its exit code.
	 *
	 * @param code 0 when the filter accepts the configuration, 2 when it refuses it
	 * @param lines {@code METHOD /path -> path} per request, or the refusal
	 */
	record Result(int code, List<String> lines) {
	}

	static synchronized Result check(Path config, List<String> requests, Path dir)
			throws IOException, InterruptedException {
		Path requestFile = Files.createTempFile(dir, "requests", ".txt");
		Files.write(requestFile, requests, StandardCharsets.UTF_8);
		Process process = new ProcessBuilder(binary().toString(), config.toString(), requestFile.toString())
			.redirectErrorStream(true)
			.start();
		String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		if (!process.waitFor(60, TimeUnit.SECONDS)) {
			process.destroyForcibly();
			throw new IllegalStateException("filter-config-check did not finish");
		}
		return new Result(process.exitValue(), output.lines().toList());
	}

	private static Path binary() throws IOException, InterruptedException {
		if (binary == null) {
			// Offline first: the filter's own build has fetched its crates; online if it
			// has not.
			if (cargo("build", "--quiet", "--offline") != 0 && cargo("build", "--quiet") != 0) {
				throw new IllegalStateException("cannot build " + CRATE + " with cargo: see the output above");
			}
			binary = TARGET.resolve("debug/pathfence-filter-config-check");
		}
		return binary;
	}

	private static int cargo(String... args) throws IOException, InterruptedException {
		List<String> command = new ArrayList<>(List.of("cargo"));
		command.addAll(List.of(args));
		command.add("--manifest-path");
		command.add(CRATE.resolve("Cargo.toml").toString());
		ProcessBuilder builder = new ProcessBuilder(command).inheritIO();
		builder.environment().put("CARGO_TARGET_DIR", TARGET.toString());
		try {
			Process process = builder.start();
			if (!process.waitFor(15, TimeUnit.MINUTES)) {
				process.destroyForcibly();
				return -1;
			}
			return process.exitValue();
		}
		catch (IOException ex) {
			throw new IOException("cargo is needed to check configurations with the filter's own code"
					+ " (scripts/env.sh puts ~/.cargo/bin on PATH; scripts/tools.sh installs it)", ex);
		}
	}

}
