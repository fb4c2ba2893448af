package io.pathfence.demo.run;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A bad option is refused before anything starts: one line on stderr naming the option
 * and what is allowed, exit code 2, no stack trace. Every case passes {@code --jar} so
 * that nothing else could fail first.
 */
class RunCommandTests {

	@ParameterizedTest
	@CsvSource(delimiter = ';', quoteCharacter = '"', value = {
			"--trace=bursty; Invalid value for option '--trace': Unknown trace 'bursty'; one of [flat, large, quick, slow]",
			"--modes=baseline,async; Unknown mode 'async'; one of [baseline, pathfence, virtual-threads, envoy]",
			"--stall-service=db; Unknown role 'db'; one of [front-end, orders, carts",
			"--stall-length=soon; 'soon' is not a duration; say 500ms, 10s, 2m or PT1.5S",
			"--stall-length=10s; --stall-length (10000 ms) must be shorter than --stall-period (10000 ms)",
			"--stall-offset=29500ms; the first stall (--stall-offset 29500 ms + --stall-length 1000 ms) must end within --faulted",
			"--place-order-rate=0; --place-order-rate must be a number of requests per second above 0",
			"--local-rate=-1; --local-rate must be a number of requests per second above 0",
			"--faulted=0s; --faulted must be longer than 0",
			"--stall-trigger=http://127.0.0.1:9/stall; --stall-trigger is for a shop run elsewhere: give --front-end too",
			"--front-end=front-end:8080; --front-end must be an http:// or https:// URL with a host" })
	void badOptionIsOneLineNamingItAndExitCodeTwo(String option, String says) {
		StringWriter err = new StringWriter();
		StringWriter out = new StringWriter();
		CommandLine commandLine = RunCommand.commandLine();
		commandLine.setErr(new PrintWriter(err));
		commandLine.setOut(new PrintWriter(out));

		int exitCode = commandLine.execute("--jar=target/app/sockshop-demo.jar", option);

		assertThat(exitCode).isEqualTo(CommandLine.ExitCode.USAGE);
		assertThat(err.toString().strip()).doesNotContain("\n")
			.doesNotContain("Exception")
			.contains(option.substring(0, option.indexOf('=')))
			.contains(says);
		assertThat(out.toString()).as("nothing started").isEmpty();
	}

	@Test
	void goodOptionsMakeTheSettingsTheyName() throws Exception {
		RunCommand command = new RunCommand();
		new CommandLine(command).parseArgs("--jar=x.jar", "--trace=quick", "--modes=baseline,virtual-threads",
				"--stall-length=600ms", "--stall-period=5s", "--place-order-rate=12.5");

		Settings settings = command.settings(Path.of("results"));

		assertThat(settings.trace()).isEqualTo(Trace.QUICK);
		assertThat(settings.modes()).containsExactly(Mode.BASELINE, Mode.VIRTUAL_THREADS);
		assertThat(settings.stallLength()).hasMillis(600);
		assertThat(settings.stallPeriod()).hasSeconds(5);
		assertThat(settings.placeOrderRate()).isEqualTo(12.5);
		assertThat(settings.orderHistoryRate()).as("the default").isEqualTo(20);
	}

}
