package io.pathfence.web;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

import io.pathfence.annotation.FencedPath;
import io.pathfence.core.PathFence;
import io.pathfence.core.PathFigures;
import io.pathfence.task.CurrentPath;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The inbound filter on a real Tomcat: classification, queueing without a thread, fast
 * explicit rejection, and permits that come back however a request ends.
 */
class PathFenceFilterTests {

	/** Holds requests of path "gate" inside the handler until the test opens it. */
	static volatile CountDownLatch gate = new CountDownLatch(0);

	private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private ConfigurableApplicationContext service;

	private String base;

	@BeforeEach
	void start() {
		gate = new CountDownLatch(1);
		this.service = new SpringApplicationBuilder(GatedApplication.class)
			.properties("server.port=0", "server.address=127.0.0.1", "spring.main.banner-mode=off",
					"pathfence.pool-size=8", "pathfence.paths.gate.permits=1", "pathfence.paths.gate.max-queue=1",
					"pathfence.paths.gate.queue-timeout=400ms", "pathfence.paths.gate.routes=/gate/**",
					"pathfence.paths.orders.permits=2", "pathfence.paths.orders.routes=/orders",
					"pathfence.paths.orders.methods=POST", "pathfence.paths.annotated.permits=1",
					"pathfence.retry-after=2s", "logging.level.root=warn")
			.run();
		this.base = "http://127.0.0.1:" + this.service.getEnvironment().getProperty("local.server.port");
	}

	@AfterEach
	void stop() {
		gate.countDown();
		this.service.close();
	}

	@Test
	void requestRunsOnThePathItsRouteAndMethodName() throws Exception {
		assertThat(get("/orders").body()).isEqualTo(PathFence.LOCAL);
		assertThat(send(HttpRequest.newBuilder(uri("/orders")).POST(HttpRequest.BodyPublishers.noBody())).body())
			.isEqualTo("orders");
	}

	@Test
	void requestRunsOnThePathItsHandlerNames() throws Exception {
		assertThat(get("/annotated/7").body()).isEqualTo("annotated");
	}

	@Test
	void requestServedByAnUnannotatedHandlerIsNotClaimedByALooserAnnotatedPattern() throws Exception {
		// /annotated/{id} also matches, but Spring MVC serves /annotated/special with the
		// more specific handler.
		assertThat(get("/annotated/special").body()).isEqualTo(PathFence.LOCAL);
	}

	@Test
	void exemptRouteBypassesTheFenceEvenWhenEveryPermitIsHeld() throws Exception {
		CompletableFuture<HttpResponse<String>> holder = getAsync("/gate/1");
		awaitFigures("gate", 1, 0);
		HttpResponse<String> probe = get("/actuator/probe");
		assertThat(probe.statusCode()).isEqualTo(200);
		assertThat(probe.body()).isEqualTo("unfenced");
		gate.countDown();
		holder.get(5, TimeUnit.SECONDS);
	}

	@Test
	void asyncHandlerWorkRunsOnTheExecutorUnderTheRequestsPath() throws Exception {
		HttpResponse<String> response = get("/orders/async");
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.body()).startsWith("annotated on pathfence-");
	}

	@Test
	void fullQueueIsAnsweredAtOnceWithProblemDetails() throws Exception {
		CompletableFuture<HttpResponse<String>> holder = getAsync("/gate/1");
		awaitFigures("gate", 1, 0);
		CompletableFuture<HttpResponse<String>> waiter = getAsync("/gate/2");
		awaitFigures("gate", 1, 1);

		long started = System.nanoTime();
		HttpResponse<String> rejected = get("/gate/3");
		long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

		assertThat(rejected.statusCode()).isEqualTo(503);
		assertThat(tookMillis).as("queue-full answer time").isLessThan(1000);
		assertThat(rejected.headers().firstValue("Retry-After")).hasValue("2");
		assertThat(rejected.headers().firstValue("X-PathFence-Path")).hasValue("gate");
		assertThat(rejected.headers().firstValue("Content-Type"))
			.hasValueSatisfying((type) -> assertThat(type).startsWith("application/problem+json"));
		assertThat(rejected.body()).contains("\"status\":503", "\"path\":\"gate\"", "\"reason\":\"queue-full\"",
				"\"instance\":\"/gate/3\"");

		gate.countDown();
		assertThat(holder.get(5, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
		assertThat(waiter.get(5, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
		awaitFigures("gate", 0, 0);
	}

	@Test
	void waitPastTheQueueTimeoutIsAnswered503() throws Exception {
		CompletableFuture<HttpResponse<String>> holder = getAsync("/gate/1");
		awaitFigures("gate", 1, 0);
		long started = System.nanoTime();
		HttpResponse<String> timedOut = get("/gate/2");
		long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
		assertThat(timedOut.statusCode()).isEqualTo(503);
		assertThat(timedOut.body()).contains("\"reason\":\"timeout\"");
		assertThat(tookMillis).isBetween(350L, 3000L);
		gate.countDown();
		assertThat(holder.get(5, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
		awaitFigures("gate", 0, 0);
	}

	@Test
	void rejectionsAreCountedInHttpServerRequestsUnderTheirRoutePattern() throws Exception {
		CompletableFuture<HttpResponse<String>> holder = getAsync("/gate/1");
		awaitFigures("gate", 1, 0);
		CompletableFuture<HttpResponse<String>> waiter = getAsync("/gate/2");
		awaitFigures("gate", 1, 1);
		assertThat(get("/gate/3").statusCode()).as("queue full").isEqualTo(503);
		assertThat(waiter.get(5, TimeUnit.SECONDS).statusCode()).as("timed out").isEqualTo(503);
		MeterRegistry registry = this.service.getBean(MeterRegistry.class);
		Awaitility.await()
			.atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(requests(registry, "/gate/{id}", "503")).isEqualTo(2));
		assertThat(registry.find("http.server.requests").tag("uri", "UNKNOWN").timers()).isEmpty();
		gate.countDown();
		assertThat(holder.get(5, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
		Awaitility.await()
			.atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(requests(registry, "/gate/{id}", "200")).isEqualTo(1));
	}

	private static long requests(MeterRegistry registry, String uri, String status) {
		return registry.find("http.server.requests")
			.tags("uri", uri, "status", status)
			.timers()
			.stream()
			.mapToLong(Timer::count)
			.sum();
	}

	@Test
	void queuedRequestHoldsNoContainerThread() throws Exception {
		CompletableFuture<HttpResponse<String>> holder = getAsync("/gate/1");
		awaitFigures("gate", 1, 0);
		getAsync("/gate/2");
		awaitFigures("gate", 1, 1);
		// Tomcat's threads: one held by the running request, none by the queued one. A
		// container thread that works
		// on a request, or is blocked anywhere in the filter chain (our filter included),
		// has the chain on its stack.
		long busy = Thread.getAllStackTraces()
			.entrySet()
			.stream()
			.filter((entry) -> entry.getKey().getName().contains("http-nio")
					&& entry.getKey().getName().contains("exec"))
			.filter((entry) -> java.util.Arrays.stream(entry.getValue())
				.anyMatch((frame) -> frame.getClassName().equals("org.apache.catalina.core.ApplicationFilterChain")))
			.count();
		assertThat(busy).as("container threads inside the filter chain").isEqualTo(1);
		gate.countDown();
		holder.get(5, TimeUnit.SECONDS);
	}

	@Test
	void clientsThatDisconnectLeaveNoPermitHeld() throws Exception {
		int port = Integer.parseInt(this.service.getEnvironment().getProperty("local.server.port"));
		// One client disconnects while its request runs, one while its request waits in
		// the queue.
		Socket running = rawGet(port, "/gate/running");
		awaitFigures("gate", 1, 0);
		Socket queued = rawGet(port, "/gate/queued");
		awaitFigures("gate", 1, 1);
		queued.setSoLinger(true, 0);
		queued.close();
		running.setSoLinger(true, 0);
		running.close();
		gate.countDown();
		awaitFigures("gate", 0, 0);
		// The path still works afterwards: its permit is really back.
		gate = new CountDownLatch(0);
		assertThat(get("/gate/after").statusCode()).isEqualTo(200);
		// The client may read the answer a moment before the filter gives the permit
		// back.
		PathFence fence = this.service.getBean(PathFence.class);
		Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
			for (PathFigures figures : fence.figures()) {
				assertThat(figures.active()).as("active of %s", figures.path()).isZero();
			}
		});
	}

	private Socket rawGet(int port, String path) throws Exception {
		Socket socket = new Socket("127.0.0.1", port);
		OutputStream out = socket.getOutputStream();
		out.write(("GET " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
		out.flush();
		return socket;
	}

	private void awaitFigures(String path, int active, int queued) {
		PathFence fence = this.service.getBean(PathFence.class);
		Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			PathFigures figures = fence.figures(path);
			assertThat(figures.active()).as("active").isEqualTo(active);
			assertThat(figures.queued()).as("queued").isEqualTo(queued);
		});
	}

	private URI uri(String path) {
		return URI.create(this.base + path);
	}

	private HttpResponse<String> get(String path) throws Exception {
		return send(HttpRequest.newBuilder(uri(path)));
	}

	private CompletableFuture<HttpResponse<String>> getAsync(String path) {
		return this.client.sendAsync(HttpRequest.newBuilder(uri(path)).build(), HttpResponse.BodyHandlers.ofString());
	}

	private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
		return this.client.send(request.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(GatedApplication.Handlers.class)
	static class GatedApplication {

		@RestController
		static class Handlers {

			private final PathFence fence;

			Handlers(PathFence fence) {
				this.fence = fence;
			}

			@GetMapping("/gate/{id}")
			String gate() throws InterruptedException {
				gate.await(10, TimeUnit.SECONDS);
				return CurrentPath.get();
			}

			@GetMapping("/orders")
			String listOrders() {
				return CurrentPath.get();
			}

			@PostMapping("/orders")
			String placeOrder() {
				return CurrentPath.get();
			}

			@GetMapping("/actuator/probe")
			String probe() {
				// An exempt request holds no permit, so it has no path.
				return PathFence.LOCAL.equals(CurrentPath.get()) && this.fence.figures(PathFence.LOCAL).active() == 0
						? "unfenced" : "fenced";
			}

			@GetMapping("/orders/async")
			@FencedPath("annotated")
			java.util.concurrent.Callable<String> asyncOrders() {
				return () -> CurrentPath.get() + " on " + Thread.currentThread().getName();
			}

			@GetMapping("/annotated/{id}")
			@FencedPath("annotated")
			String annotated() {
				return CurrentPath.get();
			}

			@GetMapping("/annotated/special")
			String special() {
				return CurrentPath.get();
			}

		}

	}

}
