package io.pathfence.whatif.profile;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The target's cores from real processes' affinity: {@code sleep} started pinned by
 * {@code taskset}, and unpinned.
 */
class TargetCoresTests {

	private final TargetCores cores = new TargetCores();

	private final List<Process> started = new java.util.ArrayList<>();

	@AfterEach
	void stop() throws InterruptedException {
		for (Process process : this.started) {
			process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
		}
	}

	private long start(String... command) throws IOException, InterruptedException {
		Process process = new ProcessBuilder(command).start();
		this.started.add(process);
		// taskset sets the mask and then becomes sleep: wait for the exec.
		for (int i = 0; i < 200
				&& !Files.readString(Path.of("/proc/" + process.pid() + "/comm")).startsWith("sleep"); i++) {
			Thread.sleep(10);
		}
		return process.pid();
	}

	private static int onlineCpus() throws IOException {
		BitSet online = TargetCores.cpuList(Files.readString(Path.of("/sys/devices/system/cpu/online")), "online");
		assertThat(online.cardinality()).as("pinning needs a machine of 2 CPUs or more").isGreaterThanOrEqualTo(2);
		return online.cardinality();
	}

	@Test
	void aPinnedTargetHasTheCpusOfItsAffinity() throws Exception {
		onlineCpus();
		long pinned = start("taskset", "-c", "0", "sleep", "30");
		assertThat(this.cores.pinned(pinned)).isEqualTo(1);
		assertThat(this.cores.affinity(pinned)).isEqualTo(BitSet.valueOf(new long[] { 1 }));
	}

	@Test
	void anUnpinnedTargetIsRefusedSayingWhy() throws Exception {
		int online = onlineCpus();
		long free = start("sleep", "30");
		assertThat(this.cores.affinity(free).cardinality()).isEqualTo(online);
		assertThatIllegalStateException().isThrownBy(() -> this.cores.pinned(free))
			.withMessageContaining("process " + free + " may run on every online CPU")
			.withMessageContaining("pin it (taskset -c");
	}

	@Test
	void aTargetSharingItsCpusWithAnotherServiceIsRefusedNamingIt() throws Exception {
		onlineCpus();
		long target = start("taskset", "-c", "0", "sleep", "30");
		long apart = start("taskset", "-c", "1", "sleep", "30");
		long sharing = start("sleep", "30");
		assertThat(this.cores.pinnedAlone(target, Map.of("carts", apart))).isEqualTo(1);
		assertThatIllegalStateException()
			.isThrownBy(() -> this.cores.pinnedAlone(target, Map.of("carts", apart, "orders", sharing)))
			.withMessageContaining("does not have its cores to itself: orders (process " + sharing + ") may run on 0");
	}

	@Test
	void aProcessThatIsGoneIsRefused() throws Exception {
		Process gone = new ProcessBuilder("true").start();
		gone.waitFor();
		assertThatIllegalStateException().isThrownBy(() -> this.cores.pinned(gone.pid()))
			.withMessageContaining("there is no process " + gone.pid());
	}

	@Test
	void aPodsCpuRequestInCoresOrMillicores() {
		assertThat(TargetCores.fromCpuRequest("500m")).isEqualTo(0.5);
		assertThat(TargetCores.fromCpuRequest("2")).isEqualTo(2.0);
		assertThat(TargetCores.fromCpuRequest(" 1.5 ")).isEqualTo(1.5);
		for (String bad : new String[] { "", "-1", "0", "0m", "2 cores", "1Gi", "m" }) {
			assertThatIllegalArgumentException().as(bad)
				.isThrownBy(() -> TargetCores.fromCpuRequest(bad))
				.withMessageContaining("CPU request '" + bad + "'");
		}
	}

}
