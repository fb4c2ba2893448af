package io.pathfence.it;

import java.net.URI;
import java.time.Duration;
import java.util.Map;

import io.pathfence.testsupport.load.PathResult;
import io.pathfence.testsupport.load.OpenLoopLoad.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The isolation scenarios' load and verdict, the same for the filter and the starter:
 * orders (which stall on shipping) arrive faster than 8 threads can stall through, the
 * fast user path runs beside them. Fenced, the user path's p99 stays under half the
 * stall; the control, unfenced, must fail that same bound.
 */
final class IsolationLoad {

	/**
	 * Orders per second: at the 4 s stall they need 32 threads of the 8 the service has.
	 * Unfenced, the first 8 orders take every thread within a second, so the user
	 * requests after them wait about 3 s, well over the bound; a lower rate would let
	 * them through in about the bound itself.
	 */
	static final double ORDERS_RATE = 8;

	/** Enough user requests (120) that the p99 is not just the slowest one. */
	static final double USER_RATE = 40;

	/**
	 * Short, because unfenced every order queues behind the stalls: the control's last
	 * order answers after ~13 s.
	 */
	static final Duration DURATION = Duration.ofSeconds(3);

	/**
	 * The bound of the fast path's p99: half the stall, which an unfenced service cannot
	 * keep. Fenced, the user path only waits for CPU and, in the starter, for a thread an
	 * order holds while it queues (300 ms at most), so 2 s leaves room for a busy
	 * machine.
	 */
	static final Duration USER_P99_BOUND = Topology.SHIPPING_STALL.dividedBy(2);

	private IsolationLoad() {
	}

	/**
	 * Warms both paths, then runs the load against {@code base} (a service or an Envoy in
	 * front of it).
	 */
	static Map<String, PathResult> run(String label, URI base) throws Exception {
		warmUp(base);
		return load(label, base);
	}

	/**
	 * One request after another on both paths, so the JIT and the connection pools are
	 * warm.
	 */
	static void warmUp(URI base) throws Exception {
		Topology.warmUp(base.resolve("/user"), 40);
		Topology.warmUp(base.resolve("/orders?delay=1"), 20);
	}

	/** The load alone, on paths already warm. */
	static Map<String, PathResult> load(String label, URI base) {
		Figures.print(label + ":");
		return ScenarioLoad.run(DURATION, Stream.get("orders", base.resolve("/orders"), ORDERS_RATE),
				Stream.get("user", base.resolve("/user"), USER_RATE));
	}

	static void assertIsolated(Map<String, PathResult> fenced, Map<String, PathResult> control) {
		PathResult user = fenced.get("user");
		PathResult orders = fenced.get("orders");
		assertThat(user.ok()).as("fenced: every user request answered 200").isEqualTo(user.count());
		assertThat(orders.rejectedByPath()).as("fenced: the orders overflow is refused, naming its path")
			.containsOnlyKeys("orders");
		assertThat(orders.ok()).as("fenced: orders within the reservation still succeed").isPositive();
		assertThat(user.percentile(99)).as("fenced: user p99").isLessThan(USER_P99_BOUND);
		assertThat(control.get("user").percentile(99))
			.as("control (unfenced): user p99 must exceed the bound the fence keeps, or the scenario proves nothing")
			.isGreaterThanOrEqualTo(USER_P99_BOUND);
	}

}
