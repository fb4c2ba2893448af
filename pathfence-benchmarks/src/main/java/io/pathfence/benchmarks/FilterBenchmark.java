package io.pathfence.benchmarks;

import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;

import io.pathfence.actuate.PathFenceMetricsListener;
import io.pathfence.core.PathFence;
import io.pathfence.learning.LearnedPaths;
import io.pathfence.web.FencedHandlers;
import io.pathfence.web.PathFenceFilter;
import io.pathfence.web.RequestClassifier;

/**
 * Where the starter's cost per inbound request goes, outside Tomcat: the time of one pass
 * through a servlet filter whose chain does nothing, for the starter's filter and for the
 * parts of it that {@code scripts/bench-starter.sh}'s variants isolate. The request and
 * response are Spring's servlet mocks (the filter reads only the URI, the method and the
 * dispatcher type); the fence, classifier and meters are the starter's own, configured as
 * the benchmark's service is (two paths of 64 permits by route, the local path,
 * Micrometer's {@link SimpleMeterRegistry} as Boot's default). Run it with one thread
 * (the cost itself) and with 32 (the saturating load's connections, on this machine's
 * cores: what contention adds).
 * <ul>
 * <li>{@code noop}: a filter that passes the request on; the floor;</li>
 * <li>{@code classify}: the starter's {@link RequestClassifier} and nothing more;</li>
 * <li>{@code classify-configured}: the same with the routes discovery learns ({@code GET
 * /orders/{id}}, {@code GET /catalog/{id}}) configured by hand;</li>
 * <li>{@code classify-learned}: the same routes learned (discovery enforcing), found
 * through the service's handlers;</li>
 * <li>{@code fence-no-metrics}: the starter's filter over a fence without a listener (so
 * the fence reads no clock);</li>
 * <li>{@code fence}: the starter's filter over a fence whose listener is the starter's
 * meters, as in a service with a {@code MeterRegistry}.</li>
 * </ul>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgs = { "-Xms256m", "-Xmx256m", "-XX:+UseG1GC" })
public class FilterBenchmark {

	private static final FilterChain NOTHING = (request, response) -> {
	};

	private static final List<String> ROUTES = List.of("/orders/1", "/catalog/1", "/local/1");

	@State(Scope.Benchmark)
	public static class Fenced {

		@Param({ "noop", "classify", "classify-configured", "classify-learned", "fence-no-metrics", "fence" })
		public String filter;

		Filter under;

		private PathFence fence;

		private LearnedPaths learnedPaths;

		@Setup(Level.Trial)
		public void setUp() {
			Map<String, RequestClassifier.PathRoutes> routes = new LinkedHashMap<>();
			routes.put("orders", new RequestClassifier.PathRoutes(List.of("/orders/**"), List.of()));
			routes.put("catalog", new RequestClassifier.PathRoutes(List.of("/catalog/**"), List.of()));
			// No handler names a path with @FencedPath: the classifier goes by routes
			// alone, after the starter's default exempt route, as in the benchmark's
			// service.
			RequestClassifier classifier = new RequestClassifier(List.of("/actuator/**"), routes, List::of);
			this.under = switch (this.filter) {
				case "noop" -> (request, response, chain) -> chain.doFilter(request, response);
				case "classify" -> (request, response, chain) -> {
					request.setAttribute("path", classifier.classify((HttpServletRequest) request));
					chain.doFilter(request, response);
				};
				case "classify-configured" -> classifying(configuredAsLearned());
				case "classify-learned" -> classifying(learned());
				case "fence-no-metrics" -> new PathFenceFilter(fence(false), classifier, Duration.ofSeconds(1));
				case "fence" -> new PathFenceFilter(fence(true), classifier, Duration.ofSeconds(1));
				default -> throw new IllegalArgumentException("unknown filter " + this.filter);
			};
		}

		private static Filter classifying(RequestClassifier classifier) {
			return (request, response, chain) -> {
				request.setAttribute("path", classifier.classify((HttpServletRequest) request));
				chain.doFilter(request, response);
			};
		}

		/**
		 * The map discovery learns, configured by hand, as the starter benchmark's
		 * configured variant.
		 */
		private static RequestClassifier configuredAsLearned() {
			Map<String, RequestClassifier.PathRoutes> routes = new LinkedHashMap<>();
			routes.put("payment", new RequestClassifier.PathRoutes(List.of("/orders/{id}"), List.of("GET")));
			routes.put("inventory", new RequestClassifier.PathRoutes(List.of("/catalog/{id}"), List.of("GET")));
			return new RequestClassifier(List.of("/actuator/**"), routes, List::of);
		}

		/**
		 * The same map learned: no configured route, the service's three handlers, and
		 * discovery enforcing the two paths its routes' calls gave it.
		 */
		private RequestClassifier learned() {
			this.fence = PathFence.builder(200).build();
			this.learnedPaths = new LearnedPaths(this.fence, true,
					new LearnedPaths.Settings(16, 256, 16, 1, 64, 50, Duration.ofMillis(500), 1, Duration.ZERO));
			this.learnedPaths.served("GET", "/orders/{id}", Map.of("payment", 1));
			this.learnedPaths.served("GET", "/catalog/{id}", Map.of("inventory", 1));
			this.learnedPaths.served("GET", "/local/{id}", Map.of());
			long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
			while (this.learnedPaths.pathOf("GET", "/catalog/{id}") == null
					|| this.learnedPaths.pathOf("GET", "/orders/{id}") == null) {
				if (System.nanoTime() > deadline) {
					throw new IllegalStateException("discovery placed no path");
				}
				Thread.onSpinWait();
			}
			Map<RequestMappingInfo, String> handlers = new LinkedHashMap<>();
			for (String pattern : List.of("/orders/{id}", "/catalog/{id}", "/local/{id}")) {
				handlers.put(RequestMappingInfo.paths(pattern).methods(RequestMethod.GET).build(),
						FencedHandlers.UNFENCED);
			}
			return new RequestClassifier(List.of("/actuator/**"), Map.of(), () -> List.of(handlers), this.learnedPaths);
		}

		private PathFence fence(boolean metered) {
			this.fence = PathFence.builder(200)
				.path("orders", 64, 50, Duration.ofMillis(500))
				.path("catalog", 64, 50, Duration.ofMillis(500))
				.localQueue(100, Duration.ofMillis(500))
				.build();
			if (metered) {
				this.fence.addListener(new PathFenceMetricsListener(new SimpleMeterRegistry(), this.fence.pathNames()));
			}
			return this.fence;
		}

		@TearDown(Level.Trial)
		public void tearDown() {
			if (this.learnedPaths != null) {
				this.learnedPaths.close();
			}
			if (this.fence != null) {
				this.fence.close();
			}
		}

	}

	/** Each thread's requests, one per route, taken in turn, and its response. */
	@State(Scope.Thread)
	public static class Requests {

		private final MockHttpServletRequest[] requests = ROUTES.stream()
			.map((uri) -> new MockHttpServletRequest("GET", uri))
			.toArray(MockHttpServletRequest[]::new);

		final MockHttpServletResponse response = new MockHttpServletResponse();

		private int next;

		MockHttpServletRequest next() {
			this.next = (this.next + 1) % this.requests.length;
			return this.requests[this.next];
		}

	}

	@Benchmark
	public void request(Fenced fenced, Requests requests) throws IOException, ServletException {
		fenced.under.doFilter(requests.next(), requests.response, NOTHING);
	}

}
