package io.pathfence.demo.run;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.pathfence.demo.topology.Topologies;
import io.pathfence.demo.topology.Topology;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The demo's claim, on the real thing: the seven services as processes from the built
 * jar, open-loop load under the large bursty trace, payment stopped (SIGSTOP) for 1 s
 * twice. Each mode's order-history path is judged against its own fault-free time. The
 * baseline half is the control: if the fault did not hurt the unfenced shop, PathFence's
 * half would prove nothing, so the baseline must break the bound that PathFence must
 * keep.
 */
class SockShopSmokeIT {

	private static final String ORDER_HISTORY = "order-history";

	@Test
	void millibottleneckOnPaymentSpreadsToOrderHistoryWithoutPathFenceAndStaysOnPlaceOrderWithIt() throws Exception {
		Path jar = Path.of(System.getProperty("sockshop.jar", "target/app/sockshop-demo.jar"));
		assertThat(jar).as("the demo's jar, built in the package phase").isRegularFile();
		Path results = Path.of(System.getProperty("sockshop.results", "target/sockshop-smoke"));
		Topology shop = Topologies.load("sock-shop");
		Settings settings = Settings.smoke("sock-shop", shop, jar, results);

		List<ModeResult> modes = new Experiment(settings, System.out).run();
		String table = Report.table(modes, shop);
		Files.createDirectories(results);
		Files.writeString(results.resolve("table.md"), table);
		Plots.write(modes, settings, results);
		System.out.println(table);
		Verdict.describe(modes, shop).forEach(System.out::println);

		ModeResult baseline = modes.get(0);
		ModeResult fenced = modes.get(1);
		assertThat(baseline.mode()).isEqualTo(Mode.BASELINE);
		assertThat(fenced.mode()).isEqualTo(Mode.PATHFENCE);
		assertThat(fenced.stalls()).as("payment was stopped twice in each mode").hasSize(2);
		assertThat(baseline.stalls()).hasSize(2);

		PathStats baselineOther = baseline.faulted().get(ORDER_HISTORY);
		PathStats baselineReference = baseline.faultFree().get(ORDER_HISTORY);
		assertThat(baselineOther.requests()).isPositive();
		assertThat(Verdict.baselineSuffers(baselineOther, baselineReference))
			.as("without PathFence, order-history p99 %.0f ms >= 5 x its fault-free %.0f ms, or some over 1 s (%d)",
					baselineOther.p99Millis(), baselineReference.p99Millis(), baselineOther.overOneSecond())
			.isTrue();

		PathStats fencedOther = fenced.faulted().get(ORDER_HISTORY);
		PathStats fencedReference = fenced.faultFree().get(ORDER_HISTORY);
		assertThat(fencedOther.requests()).isPositive();
		assertThat(fencedOther.overOneSecond()).as("order-history requests over 1 s with PathFence").isZero();
		assertThat(fencedOther.p99Millis())
			.as("order-history p99 with PathFence, against %.1f x fault-free %.0f ms", Verdict.PATHFENCE_MAX_P99_RATIO,
					fencedReference.p99Millis())
			.isLessThanOrEqualTo(Verdict.PATHFENCE_MAX_P99_RATIO * fencedReference.p99Millis());
		assertThat(fencedOther.rejected() + fencedOther.connectionOrTimeout()).as("order-history failures").isZero();
		// The stalled path pays for its own stall: its overflow is answered 503 at once.
		assertThat(fenced.faulted().get("place-order").rejected()).as("place-order 503s with PathFence").isPositive();
	}

}
