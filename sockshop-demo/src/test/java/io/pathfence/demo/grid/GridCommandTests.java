package io.pathfence.demo.grid;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A bad option of the grid is refused before anything starts: one line naming it and what
 * is allowed, exit code 2, nothing written.
 */
class GridCommandTests {

	@TempDir
	Path results;

	@ParameterizedTest
	@CsvSource(delimiterString = " | ", quoteCharacter = '"', value = {
			"--apps=sock-shop,shop | No application or topology file 'shop': one of [sock-shop, social-network, media-service]",
			"--traces=large,bursty | Unknown trace 'bursty'; one of [flat, large, quick, slow]",
			"--modes=baseline,reactive | Unknown mode 'reactive'; one of [baseline, pathfence",
			"--faulted=0s | --faulted must be longer than 0",
			"--reference=0s | --reference too when a PathFence mode runs",
			"--users=32,0 | --users must be levels of at least 1 user, not [32, 0]",
			"--mix-app=media | --mix-app media must be one of --apps [sock-shop, social-network, media-service], or none",
			"--closed-loop=soon | 'soon' is not a duration",
			"--warm-up=0s --modes=baseline,envoy-learned | --warm-up must be longer than 0 with --modes envoy-learned" })
	void badOptionIsOneLineNamingItAndExitCodeTwo(String option, String says) {
		StringWriter err = new StringWriter();
		StringWriter out = new StringWriter();
		CommandLine commandLine = GridCommand.commandLine();
		commandLine.setErr(new PrintWriter(err));
		commandLine.setOut(new PrintWriter(out));

		List<String> args = new ArrayList<>(List.of("--jar=target/app/sockshop-demo.jar", "--results=" + this.results));
		// A case may need a second option to be refused; the first is the one named.
		args.addAll(List.of(option.split(" ")));
		int exitCode = commandLine.execute(args.toArray(String[]::new));

		assertThat(exitCode).isEqualTo(CommandLine.ExitCode.USAGE);
		assertThat(err.toString().strip()).doesNotContain("\n")
			.doesNotContain("Exception")
			.contains(option.substring(0, option.indexOf('=')))
			.contains(says);
		assertThat(out.toString()).as("nothing started").isEmpty();
		assertThat(this.results).as("nothing written").isEmptyDirectory();
	}

}
