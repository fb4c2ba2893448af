package io.pathfence.demo.whatif;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The what-if run's refusals and ends on the real thing: the demo's jar started as the
 * user starts it, the shop's seven services under real pause agents, pinned, real load.
 * Each case exits with code 2 and one line saying why, and leaves no process behind,
 * stopped or running.
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

}
