package io.pathfence.it;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import io.pathfence.testcontainers.DockerTestSupport;
import io.pathfence.testcontainers.PathFenceContainer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scenario (e): clients that disconnect mid-request leave no slot held. Ten clients send
 * requests that stall upstream, so four hold the path's slots and six wait; then every
 * client resets its connection. The filter frees the slots and empties the queue at once,
 * long before the stall ends; the starter (whose thread cannot notice the disconnect
 * while it waits on shipping) frees them when the handlers return. Either way every
 * active and queued gauge returns to 0.
 */
@ExtendWith(TopologyExtension.class)
class DisconnectReleaseIT {

	private static final int CLIENTS = 10;

	/**
	 * The filter's fence for this scenario, in front of shipping itself: 4 slots, and a
	 * queue on each of Envoy's two workers that holds all six others (wherever their
	 * connections land) far longer than the scenario lasts, so the waiting requests are
	 * still queued when their clients reset.
	 */
	private static final String SHIPPING_FENCE = """
			{"paths": [{"name": "shipping", "match": {"prefix": "/ship"}, "max_concurrency": 4, "max_queue": 16,
			            "queue_timeout_ms": 60000}]}""";

	/**
	 * Far longer than the scenario: any release the test sees comes from the resets, not
	 * from an answer.
	 */
	private static final Duration UPSTREAM_STALL = Duration.ofSeconds(30);

	/**
	 * How soon after the resets the filter must hold nothing: generous for a busy
	 * machine, a fraction of the stall.
	 */
	private static final Duration RELEASE_BOUND = Duration.ofSeconds(3);

	/**
	 * The orders the starter holds stall this long; its permits return when the handlers
	 * do.
	 */
	private static final Duration STARTER_ORDER_STALL = Duration.ofSeconds(3);

	@Test
	void whenClientsDisconnectMidRequestThenTheFilterReleasesEverySlotAndQueuedRequestAtOnce(Topology topology)
			throws Exception {
		// Its own Envoy in front of shipping, whose threads are unbounded: the stalls
		// left behind hold nothing
		// another scenario uses, and its counters start at 0.
		try (PathFenceContainer envoy = new PathFenceContainer(DockerTestSupport.envoyImage())
			.withTarget(topology.shipping, 8080)
			.withPathFenceConfig(SHIPPING_FENCE)) {
			envoy.start();
			long sent = System.nanoTime();
			List<Socket> clients = sendStallingRequests(envoy.getHost(), envoy.getProxyPort(),
					"/ship?delay=" + UPSTREAM_STALL.toMillis(), "shipping");
			awaitTrue(
					() -> envoy.getPathStat("shipping", "active") == 4 && envoy.getPathStat("shipping", "queued") == 6,
					"the filter's shipping.active == 4 and shipping.queued == 6");

			long reset = System.nanoTime();
			// The latest first: most likely the queued ones, so the queue empties by
			// their resets rather than by
			// being admitted into slots that the active clients' resets free.
			List<Socket> latestFirst = new ArrayList<>(clients);
			Collections.reverse(latestFirst);
			reset(latestFirst);
			Gauges.awaitEnvoyIdle(envoy, RELEASE_BOUND);
			long idle = System.nanoTime();
			Figures.print("(e) filter: every gauge at 0 " + Duration.ofNanos(idle - reset).toMillis()
					+ " ms after the clients reset");
			assertThat(Duration.ofNanos(idle - sent)).as("released before shipping answered any of them")
				.isLessThan(UPSTREAM_STALL);
			assertThat(envoy.getPathStat("shipping", "rejected.timeout")).as("no queued request waited out its timeout")
				.isZero();
			assertThat(envoy.getPathStat("shipping", "rejected.queue-full")).as("nothing refused").isZero();
		}
	}

	@Test
	void whenClientsDisconnectMidRequestThenTheStarterReleasesEveryPermitWhenTheHandlersReturn(Topology topology)
			throws Exception {
		List<Socket> clients = sendStallingRequests(topology.ordersFenced.getHost(),
				topology.ordersFenced.getMappedPort(8080), "/orders?delay=" + STARTER_ORDER_STALL.toMillis(), "orders");
		awaitTrue(() -> Topology.starterFigures(topology.ordersFenced).get("orders").get(0) == 4,
				"the starter's orders active == 4");

		reset(clients);
		long reset = System.nanoTime();
		Gauges.awaitStarterIdle(topology.ordersFenced, STARTER_ORDER_STALL.plusSeconds(3));
		Figures.print("(e) starter: every reservation at 0 active, 0 queued "
				+ Duration.ofNanos(System.nanoTime() - reset).toMillis() + " ms after the clients reset");
	}

	private static List<Socket> sendStallingRequests(String host, int port, String pathAndQuery, String hostHeader)
			throws IOException {
		List<Socket> clients = new ArrayList<>();
		for (int i = 0; i < CLIENTS; i++) {
			Socket socket = new Socket(host, port);
			OutputStream out = socket.getOutputStream();
			out.write(("GET " + pathAndQuery + " HTTP/1.1\r\nHost: " + hostHeader + "\r\n\r\n")
				.getBytes(StandardCharsets.US_ASCII));
			out.flush();
			clients.add(socket);
		}
		return clients;
	}

	/** Closes each connection with a TCP reset, as a client that gives up does. */
	private static void reset(List<Socket> clients) throws IOException {
		for (Socket socket : clients) {
			socket.setSoLinger(true, 0);
			socket.close();
		}
	}

	interface Condition {

		boolean holds() throws Exception;

	}

	private static void awaitTrue(Condition condition, String what) throws Exception {
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (!condition.holds()) {
			assertThat(System.nanoTime()).as("waiting for " + what).isLessThan(deadline);
			Thread.sleep(20);
		}
	}

}
