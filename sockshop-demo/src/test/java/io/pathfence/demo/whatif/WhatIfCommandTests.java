package io.pathfence.demo.whatif;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Bad input is refused before anything starts: one line on stderr, exit code 2, no stack
 * trace, nothing on stdout (where the run reports what it started). Every case passes
 * {@code --jar}, a real agent and results folder, so nothing else could fail first.
 */
class WhatIfCommandTests {

	@TempDir
	Path results;

	@ParameterizedTest
	@CsvSource(delimiter = ';', quoteCharacter = '"', value = {
			"--target=db; --target db: no such service in sock-shop; one of [front-end, orders, payment",
			"--reduce=0%; each reduction must lie strictly between 0 % and 100 %",
			"--reduce=100%; each reduction must lie strictly between 0 % and 100 %",
			"--reduce=10..120%/10; each reduction must lie strictly between 0 % and 100 %",
			"--reduce=-5%; each reduction must lie strictly between 0 % and 100 %",
			"--reduce=half; say a range such as 10..50%/10",
			"--cpu-time=db=3ms; --cpu-time db: no such service in sock-shop",
			"--cpu-time=payment=0ms; --cpu-time payment must be longer than 0",
			"--threads=db=64; --threads db: no such service in sock-shop",
			"--threads=orders=0; --threads orders must be at least 1",
			"--restart-warm-up=0s; --restart-warm-up must be longer than 0", "--users=1; --users must be at least 2",
			"--repetitions=0; --repetitions must be at least 1", "--windows=0; --windows must be at least 1",
			"--windows=40; --windows 40 splits a measured run of 15000 ms into windows shorter than 500 ms",
			"--mechanism=stop; Invalid value for option '--mechanism': expected one of [AGENT, FILTER] (case-insensitive) but was 'stop'",
			"--pause-agent=/nonexistent/pause-agent; no service can run under a pause agent: /nonexistent/pause-agent "
					+ "is not an executable file" })
	void badInputIsOneLineAndExitCodeTwo(String option, String says) {
		StringWriter err = new StringWriter();
		StringWriter out = new StringWriter();
		CommandLine commandLine = WhatIfCommand.commandLine();
		commandLine.setErr(new PrintWriter(err));
		commandLine.setOut(new PrintWriter(out));
		String target = option.startsWith("--target") ? option : "--target=payment";
		String agent = option.startsWith("--pause-agent") ? option : "--pause-agent=" + WhatIfProcesses.agent();

		int exitCode = commandLine.execute(new LinkedHashSet<>(
				List.of("--jar=target/app/sockshop-demo.jar", "--results=" + this.results, agent, target, option))
			.toArray(String[]::new));

		assertThat(exitCode).isEqualTo(CommandLine.ExitCode.USAGE);
		assertThat(err.toString().strip()).doesNotContain("\n").doesNotContain("Exception").contains(says);
		assertThat(out.toString()).as("nothing started").isEmpty();
		assertThat(this.results).isEmptyDirectory();
	}

	@Test
	void theMechanismIsAgentOrFilterInAnyCaseAndTheHelpListsThem() {
		CommandLine commandLine = WhatIfCommand.commandLine();

		commandLine.parseArgs("--target=payment", "--mechanism=Filter");

		assertThat(((WhatIfCommand) commandLine.getCommand()).mechanism).isEqualTo(Mechanism.FILTER);
		assertThat(commandLine.getUsageMessage()).contains("one of agent, filter:");
	}

	@Test
	void aFailureUnderWayIsOneLineNamingItAndExitCodeTwoAndABugKeepsItsStackTrace() throws Exception {
		StringWriter err = new StringWriter();
		CommandLine commandLine = WhatIfCommand.commandLine();
		commandLine.setErr(new PrintWriter(err, true));
		WhatIfFailure failure = new WhatIfFailure(
				"the profiling run failed: payment's metrics (http://127.0.0.1:1/actuator/prometheus) could not be "
						+ "read: no answer within 5000 ms",
				new java.net.http.HttpTimeoutException("request timed out"));

		int exitCode = commandLine.getExecutionExceptionHandler().handleExecutionException(failure, commandLine, null);

		assertThat(exitCode).isEqualTo(CommandLine.ExitCode.USAGE);
		assertThat(err.toString()).isEqualTo("whatif: " + failure.getMessage() + System.lineSeparator());
		// The control: what is not a failure the run names is rethrown, for picocli's
		// stack trace and exit code 1.
		IllegalStateException bug = new IllegalStateException("a bug");
		assertThatThrownBy(
				() -> commandLine.getExecutionExceptionHandler().handleExecutionException(bug, commandLine, null))
			.isSameAs(bug);
	}

}
