package io.pathfence.demo.whatif;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The what-if run's refusals and ends on the real thing: the demo's jar started as the
 * user starts it, the shop's seven services under real pause agents, pinned, real load.
 * Each case exits with code 2 and one line saying why, or is ended by a signal, and
 * leaves no process behind, stopped or running.
 */
class WhatIfIT {

	private static final Duration RUN = Duration.ofMinutes(4);

	private static final Duration GRACE = Duration.ofSeconds(15);

	@TempDir
	Path folder;

	@Test
	void aServiceWhoseAgentRefusesToStartIsOneLineAndExitCodeTwo() throws Exception {
		// A CPU quota on the agents' cgroup, as the agent reads it under --proc-root:
		// every
		// agent refuses, so the first service has none.
		Path root = this.folder.resolve("root");
		Files.createDirectories(root.resolve("proc/self"));
		Files.writeString(root.resolve("proc/self/cgroup"), "0::/kubepods/pod1\n");
		Files.writeString(root.resolve("proc/self/mountinfo"), "41 31 0:38 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
		Files.createDirectories(root.resolve("sys/fs/cgroup/kubepods/pod1"));
		Files.writeString(root.resolve("sys/fs/cgroup/kubepods/pod1/cpu.max"), "50000 100000\n");

		try (WhatIfProcesses run = WhatIfProcesses.start(this.folder.resolve("run"),
				List.of("--target=payment", "--reduce=20%", "--pause-agent-option=--proc-root=" + root))) {
			assertThat(run.exitCode(RUN)).isEqualTo(2);
			assertThat(run.linesStartingWith("whatif:")).singleElement()
				.asString()
				.contains("has no pause agent")
				.contains("CPU quota");
			assertThat(run.output()).doesNotContain("Exception");
			assertThat(run.leftBehind(GRACE)).isEmpty();
		}
	}

	@Test
	void aLoadThatCannotSaturateTheShopIsOneLineAndExitCodeTwoAndNothingIsLeft() throws Exception {
		// Two users, then one: a closed loop this small waits on its own answers, and two
		// users get about twice what one gets.
		try (WhatIfProcesses run = WhatIfProcesses.start(this.folder.resolve("run"), List.of("--target=payment",
				"--reduce=20%", "--users=2", "--warm-up=2s", "--profile=4s", "--measure=4s"))) {
			assertThat(run.exitCode(RUN)).isEqualTo(2);
			assertThat(run.linesStartingWith("whatif:")).singleElement()
				.asString()
				.contains("the load cannot saturate the shop")
				.contains("run with more --users");
			assertThat(run.output()).doesNotContain("Exception");
			assertThat(run.processesSeen()).as("the services and their agents ran").isGreaterThanOrEqualTo(14);
			assertThat(run.leftBehind(GRACE)).isEmpty();
		}
	}

	@Test
	void pausesThatFailAreOneLineNamingTheServiceAndExitCodeTwoAndNothingIsLeft() throws Exception {
		// Every agent refuses any pause over 1 ms, and a round pauses about 25 ms.
		try (WhatIfProcesses run = WhatIfProcesses.start(this.folder.resolve("run"),
				List.of("--target=payment", "--reduce=40%", "--cpu-time=payment=20ms", "--threads=orders=64",
						"--users=256", "--warm-up=20s", "--profile=4s", "--measure=4s",
						"--pause-agent-option=--max-pause-ms=1"))) {
			assertThat(run.exitCode(RUN)).isEqualTo(2);
			assertThat(run.linesStartingWith("whatif:")).as(run.output())
				.singleElement()
				.asString()
				.containsPattern("whatif: [a-z-]+'s pauses failed \\d+ of \\d+ times")
				.contains("longer than the limit of 1000000 ns")
				.contains("at 40 % is void");
			assertThat(run.output()).doesNotContain("Exception");
			assertThat(run.leftBehind(GRACE)).isEmpty();
		}
	}

	@ParameterizedTest
	@CsvSource({ "TERM, false, 143", "INT, true, 130" })
	void aSignalDuringAPauseLeavesNoServiceStoppedOrRunning(String signal, boolean toTheGroup, int exitCode)
			throws Exception {
		try (WhatIfProcesses run = WhatIfProcesses.start(this.folder.resolve("run"),
				List.of("--target=payment", "--reduce=40%", "--cpu-time=payment=20ms", "--threads=orders=64",
						"--users=256", "--warm-up=20s", "--profile=4s", "--measure=20s"))) {
			assertThat(run.awaitOutput("repetition 1: baseline", RUN)).as(run.output()).isTrue();
			assertThat(run.awaitAPause(Duration.ofSeconds(20))).as("a service seen paused").isTrue();

			// SIGTERM to the run alone, as a process manager ends it; SIGINT to its whole
			// process group, agents included, as Ctrl-C in a terminal does.
			long pid = run.process().pid();
			new ProcessBuilder("kill", "-" + signal, "--", (toTheGroup ? "-" : "") + pid).inheritIO().start().waitFor();

			assertThat(run.exitCode(GRACE)).isEqualTo(exitCode);
			assertThat(run.leftBehind(GRACE)).isEmpty();
		}
	}

}
