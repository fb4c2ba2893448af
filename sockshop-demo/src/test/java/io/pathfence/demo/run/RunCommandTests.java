package io.pathfence.demo.run;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

import io.pathfence.demo.topology.MillibottleneckSource;

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
			"--modes=baseline,reactive; Unknown mode 'reactive'; one of [baseline, pathfence, pathfence-sct, pathfence-learned, virtual-threads, async, envoy, envoy-learned]",
			"--app=shop; No application or topology file 'shop': one of [sock-shop, social-network, media-service]",
			"--fault=noise; Unknown millibottleneck source 'noise'; one of [stop, interference, burst]",
			"--stall-service=db; --stall-service db: not a service of sock-shop behind its gateway; one of [orders, payment",
			"--stall-service=front-end; --stall-service front-end: not a service of sock-shop behind its gateway",
			"--stall-length=soon; 'soon' is not a duration; say 500ms, 10s, 2m or PT1.5S",
			"--stall-length=10s; --stall-length (10000 ms) must be shorter than --stall-period (10000 ms)",
			"--stall-offset=29500ms; the first stall (--stall-offset 29500 ms + --stall-length 1000 ms) must end within --faulted",
			"--rate=place-order=0; --rate place-order must be a number of requests per second above 0",
			"--rate=local=-1; --rate local must be a number of requests per second above 0",
			"--rate=checkout=3; --rate checkout: no such path in sock-shop; one of [place-order, order-history, local, catalogue]",
			"--faulted=0s; --faulted must be longer than 0",
			"--stall-trigger=http://127.0.0.1:9/stall; --stall-trigger is for an application run elsewhere: give --front-end too",
			"--front-end=front-end:8080; --front-end must be an http:// or https:// URL with a host",
			"--filter-tuning=true; --filter-tuning is for the filter the envoy modes run locally: give --modes with envoy",
			"--traces=true --front-end=http://front-end:8080; --traces and --modes envoy-learned are for an application the runner starts",
			"--warm-up=0s --modes=envoy-learned; --warm-up must be longer than 0 with --modes envoy-learned" })
	void badOptionIsOneLineNamingItAndExitCodeTwo(String option, String says) {
		StringWriter err = new StringWriter();
		StringWriter out = new StringWriter();
		CommandLine commandLine = RunCommand.commandLine();
		commandLine.setErr(new PrintWriter(err));
		commandLine.setOut(new PrintWriter(out));

		List<String> args = new ArrayList<>(List.of("--jar=target/app/sockshop-demo.jar"));
		// A case may need a second option to be refused; the first is the one named.
		args.addAll(List.of(option.split(" ")));
		int exitCode = commandLine.execute(args.toArray(String[]::new));

		assertThat(exitCode).isEqualTo(CommandLine.ExitCode.USAGE);
		assertThat(err.toString().strip()).doesNotContain("\n")
			.doesNotContain("Exception")
			.contains(option.substring(0, option.indexOf('=')))
			.contains(says);
		assertThat(out.toString()).as("nothing started").isEmpty();
	}

	@Test
	void aMalformedTopologyFileIsOneLineNamingTheFileAndTheField(@TempDir Path folder) throws Exception {
		String shop = new String(getClass().getResourceAsStream("/topologies/sock-shop.yaml").readAllBytes());
		Path file = folder.resolve("broken.yaml");
		Files.writeString(file, shop.replace("pools: {threads: 14,", "pools: {threads: many,"));
		StringWriter err = new StringWriter();
		CommandLine commandLine = RunCommand.commandLine();
		commandLine.setErr(new PrintWriter(err));

		int exitCode = commandLine.execute("--jar=target/app/sockshop-demo.jar", "--app=" + file);

		assertThat(exitCode).isEqualTo(CommandLine.ExitCode.USAGE);
		assertThat(err.toString().strip()).doesNotContain("\n")
			.contains(file + ": services.orders.pools.threads: must be a whole number of at least 1, not 'many'");
	}

	@Test
	void goodOptionsMakeTheSettingsTheyName() throws Exception {
		RunCommand command = new RunCommand();
		new CommandLine(command).parseArgs("--jar=x.jar", "--app=social-network", "--trace=quick",
				"--modes=baseline,async,pathfence-sct", "--fault=stop", "--stall-length=600ms", "--stall-period=5s",
				"--rate", "home-timeline=12.5");

		Settings settings = command.settings(command.topology(), Path.of("results"));

		assertThat(settings.topology().name()).isEqualTo("social-network");
		assertThat(settings.trace()).isEqualTo(Trace.QUICK);
		assertThat(settings.modes()).containsExactly(Mode.BASELINE, Mode.ASYNC, Mode.PATHFENCE_SCT);
		assertThat(settings.millibottleneck().source()).isEqualTo(MillibottleneckSource.STOP);
		assertThat(settings.stalledService()).as("the topology's").isEqualTo("social-graph-db");
		assertThat(settings.millibottleneck().length()).hasMillis(600);
		assertThat(settings.millibottleneck().period()).hasSeconds(5);
		assertThat(settings.rate("home-timeline")).isEqualTo(12.5);
		assertThat(settings.rate("user-timeline")).as("the topology's").isEqualTo(18);
		assertThat(settings.filterTuning()).isFalse();
	}

}
