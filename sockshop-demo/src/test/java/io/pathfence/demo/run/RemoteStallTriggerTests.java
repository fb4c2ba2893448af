package io.pathfence.demo.run;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIOException;

/**
 * The runner's side of the cluster's millibottleneck, against a real HTTP trigger on
 * loopback that answers as the payment pod's sidecar does.
 */
class RemoteStallTriggerTests {

	private final List<String> queries = new CopyOnWriteArrayList<>();

	private HttpServer sidecar;

	private volatile int status = 200;

	@BeforeEach
	void startSidecar() throws IOException {
		this.sidecar = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
		this.sidecar.createContext("/cgi-bin/stall", (exchange) -> {
			this.queries.add(exchange.getRequestURI().getRawQuery());
			byte[] body = "no java process to stop\n".getBytes(StandardCharsets.UTF_8);
			exchange.sendResponseHeaders(this.status, body.length);
			exchange.getResponseBody().write(body);
			exchange.close();
		});
		this.sidecar.start();
	}

	@AfterEach
	void stopSidecar() {
		this.sidecar.stop(0);
	}

	@Test
	void stallAsksForItsLengthInMillisecondsAndCheckAsksForNone() throws Exception {
		RemoteStallTrigger trigger = new RemoteStallTrigger(uri());

		trigger.check();
		trigger.stall(1_000_000_000L);
		trigger.stall(600_400_000L);

		assertThat(this.queries).containsExactly("ms=0", "ms=1000", "ms=600");
	}

	@Test
	void aTriggerThatCannotStopTheServiceFailsSayingWhy() {
		this.status = 500;
		RemoteStallTrigger trigger = new RemoteStallTrigger(uri());

		assertThatIOException().isThrownBy(trigger::check)
			.withMessageContaining("answered 500: no java process to stop");
	}

	private URI uri() {
		return URI.create("http://127.0.0.1:" + this.sidecar.getAddress().getPort() + "/cgi-bin/stall");
	}

}
