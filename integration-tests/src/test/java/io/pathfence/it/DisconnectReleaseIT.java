package io.pathfence.it;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scenario (e): clients that disconnect mid-request leave no slot held. Ten clients send orders that stall 3 s
 * on shipping, so four hold the orders path's slots and the others wait; then every client resets its
 * connection. The filter frees the slots at once, long before the stall ends; the starter (whose thread cannot
 * notice the disconnect while it waits on shipping) frees them when the handlers return. Either way every active
 * and queued gauge returns to 0.
 */
@ExtendWith(TopologyExtension.class)
class DisconnectReleaseIT {

	private static final Duration ORDER_STALL = Duration.ofSeconds(3);

	@Test
	void whenClientsDisconnectMidRequestThenTheFilterReleasesEverySlotAtOnce(Topology topology) throws Exception {
		long sent = System.nanoTime();
		List<Socket> clients = sendStallingOrders(topology.envoyFenced.getHost(), topology.envoyFenced.getProxyPort());
		awaitTrue(() -> topology.envoyFenced.getPathStat("orders", "active") == 4, "the filter's orders.active == 4");

		reset(clients);
		long reset = System.nanoTime();
		Gauges.awaitEnvoyIdle(topology.envoyFenced, Duration.ofSeconds(2));
		Duration released = Duration.ofNanos(System.nanoTime() - reset);
		Figures.print("(e) filter: every gauge at 0 " + released.toMillis() + " ms after the clients reset");
		assertThat(Duration.ofNanos(System.nanoTime() - sent)).as("released before the upstream stall ended")
			.isLessThan(ORDER_STALL);

		// The orders service's threads are still in the stall; let it end before another scenario uses the service.
		Thread.sleep(Math.max(0, ORDER_STALL.toMillis() - Duration.ofNanos(System.nanoTime() - sent).toMillis() + 200));
	}

	@Test
	void whenClientsDisconnectMidRequestThenTheStarterReleasesEveryPermitWhenTheHandlersReturn(Topology topology)
			throws Exception {
		List<Socket> clients = sendStallingOrders(topology.ordersFenced.getHost(),
				topology.ordersFenced.getMappedPort(8080));
		awaitTrue(() -> Topology.starterFigures(topology.ordersFenced).get("orders").get(0) == 4,
				"the starter's orders active == 4");

		reset(clients);
		long reset = System.nanoTime();
		Gauges.awaitStarterIdle(topology.ordersFenced, ORDER_STALL.plusSeconds(3));
		Figures.print("(e) starter: every reservation at 0 active, 0 queued "
				+ Duration.ofNanos(System.nanoTime() - reset).toMillis() + " ms after the clients reset");
	}

	private static List<Socket> sendStallingOrders(String host, int port) throws IOException {
		List<Socket> clients = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			Socket socket = new Socket(host, port);
			OutputStream out = socket.getOutputStream();
			out.write(("GET /orders?delay=" + ORDER_STALL.toMillis() + " HTTP/1.1\r\nHost: orders\r\n\r\n")
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
		long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
		while (!condition.holds()) {
			assertThat(System.nanoTime()).as("waiting for " + what).isLessThan(deadline);
			Thread.sleep(20);
		}
	}

}
