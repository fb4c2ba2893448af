package io.pathfence.demo.whatif;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pathfence.demo.run.EnvoySidecar;
import io.pathfence.whatif.agent.PauseResult;
import io.pathfence.whatif.filter.FilterRoundsException;
import io.pathfence.whatif.rounds.Pauser;

/**
 * The filter mechanism in a real Envoy 1.40 with the built filter, in front of a real
 * HTTP service: a round paid through the sidecar holds the service's new calls for its
 * pause (the same call with no round on goes straight through), a stale round is refused
 * by name, and the control requests never reach the service.
 */
class FilterSidecarsTests {

	private static final long MS = 1_000_000;

	private static final Duration PAUSE = Duration.ofMillis(500);

	@TempDir
	Path logs;

	private HttpServer service;

	private final List<String> served = new CopyOnWriteArrayList<>();

	private FilterSidecars sidecars;

	@BeforeEach
	void startService() throws IOException {
		this.service = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
		this.service.createContext("/", (exchange) -> {
			this.served.add(exchange.getRequestURI().getPath());
			byte[] body = "ok".getBytes();
			exchange.sendResponseHeaders(200, body.length);
			try (OutputStream out = exchange.getResponseBody()) {
				out.write(body);
			}
		});
		this.service.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
		this.service.start();
	}

	@AfterEach
	void stop() {
		if (this.sidecars != null) {
			this.sidecars.close();
		}
		this.service.stop(0);
	}

	private URI serviceAddress() {
		return URI.create("http://127.0.0.1:" + this.service.getAddress().getPort());
	}

	private FilterSidecars sidecars() {
		try {
			EnvoySidecar.checkAvailable();
		}
		catch (IllegalArgumentException ex) {
			assumeTrue(false, ex.getMessage());
		}
		this.sidecars = new FilterSidecars(Set.of("payment", "carts"), this.logs);
		return this.sidecars;
	}

	private static long millisToGet(URI uri) throws Exception {
		HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
		long start = System.nanoTime();
		HttpResponse<String> response = client.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).isEqualTo(200);
		return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
	}

	@Test
	void aRoundPaidThroughTheSidecarHoldsTheServicesNewCallsForItsPause() throws Exception {
		FilterSidecars sidecars = sidecars();
		URI front = sidecars.front("payment", serviceAddress());
		assertThat(front.getPort()).isNotEqualTo(serviceAddress().getPort());
		// The control: no round on, a call goes through at once.
		long unpaused = millisToGet(front.resolve("/paymentAuth"));

		Pauser pauser = sidecars.pauser("payment");
		CompletableFuture<PauseResult> pausing = CompletableFuture.supplyAsync(() -> {
			try {
				return pauser.pause(1, PAUSE.toNanos());
			}
			catch (IOException ex) {
				throw new IllegalStateException(ex);
			}
		});
		Thread.sleep(50);
		long held = millisToGet(front.resolve("/paymentAuth"));
		PauseResult paid = pausing.get(5, TimeUnit.SECONDS);

		assertThat(unpaused).isLessThan(200);
		assertThat(held).isGreaterThanOrEqualTo(PAUSE.toMillis() - 150);
		assertThat(paid.stoppedNanos()).isGreaterThanOrEqualTo(PAUSE.toNanos());
		assertThatExceptionOfType(FilterRoundsException.class).isThrownBy(() -> pauser.pause(1, 10 * MS))
			.withMessageContaining("refused round 1 as not newer")
			.satisfies((ex) -> assertThat(ex.status()).isEqualTo(409));
		assertThat(this.served).containsExactly("/paymentAuth", "/paymentAuth");
	}

	@Test
	void callsToPausedServicesAreRoutedThroughTheirSidecarsAndOthersAreLeftAlone() throws Exception {
		FilterSidecars sidecars = sidecars();
		String address = serviceAddress().toString();
		List<String> routed = sidecars.routed(List.of("java", "--role=orders", "--downstream.payment=" + address,
				"--downstream.shipping=http://127.0.0.1:1"));

		URI front = sidecars.front("payment", serviceAddress());
		assertThat(routed).containsExactly("java", "--role=orders", "--downstream.payment=" + front,
				"--downstream.shipping=http://127.0.0.1:1");
		assertThat(sidecars.front("shipping", URI.create("http://127.0.0.1:1"))).hasToString("http://127.0.0.1:1");
		assertThat(sidecars.pids()).containsOnlyKeys("the sidecar of payment");
		assertThatExceptionOfType(WhatIfFailure.class).isThrownBy(() -> sidecars.pauser("carts"))
			.withMessageContaining("carts cannot be paused by the filter: no sidecar fronts it");
	}

}
