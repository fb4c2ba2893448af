package io.pathfence.cli;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

class PathsCommandTests {

	@TempDir
	Path dir;

	private static final String ORDERS = """
			[{"traceId": "a1", "id": "01", "kind": "SERVER", "timestamp": 1000, "duration": 100000,
			  "localEndpoint": {"serviceName": "orders"}, "tags": {"http.method": "POST", "http.route": "/orders"}},
			 {"traceId": "a1", "id": "02", "parentId": "01", "kind": "CLIENT", "timestamp": 2000, "duration": 50000,
			  "localEndpoint": {"serviceName": "orders"}, "remoteEndpoint": {"serviceName": "payment"}},
			 {"traceId": "a1", "id": "03", "parentId": "01", "kind": "CLIENT", "timestamp": 60000, "duration": 30000,
			  "localEndpoint": {"serviceName": "orders"}, "remoteEndpoint": {"serviceName": "shipping"}},
			 {"traceId": "a2", "id": "01", "kind": "SERVER", "timestamp": 1000, "duration": 10000,
			  "localEndpoint": {"serviceName": "orders"}, "tags": {"http.method": "GET", "http.path": "/orders/77"}},
			 {"traceId": "a2", "id": "02", "parentId": "01", "kind": "CLIENT", "timestamp": 2000, "duration": 6000,
			  "localEndpoint": {"serviceName": "orders"}, "tags": {"http.url": "http://carts:8081/carts/5"}},
			 {"traceId": "a3", "id": "01", "kind": "SERVER", "timestamp": 1000, "duration": 2000,
			  "localEndpoint": {"serviceName": "orders"}, "tags": {"http.method": "GET", "http.route": "/health"}}]""";

	private Path traces() throws Exception {
		Path file = this.dir.resolve("orders.json");
		Files.writeString(file, ORDERS);
		return file;
	}

	@Test
	void printsRoutesPathsAndCriticalPathsAndWritesBothConfigurations() throws Exception {
		Path traces = traces();
		Path yaml = this.dir.resolve("out/paths.yml");
		Path json = this.dir.resolve("out/filter.json");
		CliRun run = CliRun.of("paths", "--service", "orders", traces.toString(), "--yaml", yaml.toString(),
				"--filter-json", json.toString());
		assertThat(run.code()).as(run.err()).isZero();
		assertThat(run.err()).isEmpty();
		assertThat(run.out()).isEqualTo(
				"""
						orders: 3 requests of 3 routes, in 3 traces (%1$s)

						Routes and the downstreams they call (calls per request):
						  GET /health           1 request  (local)
						  POST /orders          1 request  payment 1.00, shipping 1.00
						  GET /orders/{id}      1 request  carts:8081 1.00

						Paths (2, at most 16):
						  carts-8081        carts:8081        GET /orders/{id}
						  payment_shipping  payment+shipping  POST /orders
						  local                               GET /health

						Critical path of each route's requests (median share per request; rules of the DeathStarBench critical-path study, section 3.1):
						  GET /health: 1 request, median 2.0 ms, calls no downstream
						    by downstream: orders (own) 100.0%%
						    by service:    orders (own) 100.0%%
						  POST /orders: 1 request, median 100.0 ms, dominated by payment
						    by downstream: payment 50.0%%, shipping 30.0%%, orders (own) 20.0%%
						    by service:    payment 50.0%%, shipping 30.0%%, orders (own) 20.0%%
						  GET /orders/{id}: 1 request, median 10.0 ms, dominated by carts:8081
						    by downstream: carts:8081 60.0%%, orders (own) 40.0%%
						    by service:    carts:8081 60.0%%, orders (own) 40.0%%

						Wrote the starter's pathfence.paths to %2$s
						Wrote the filter's configuration to %3$s
						"""
					.formatted(traces, yaml, json));
		assertThat(Files.readString(yaml)).contains("    payment_shipping:\n", "        - \"/orders/{id}\"\n");
		assertThat(Files.readString(json)).contains("{\"name\": \"carts-8081\", \"match\": {\"prefix\": \"/orders/\"");
	}

	@Test
	void aCapReachedIsAWarning() throws Exception {
		CliRun run = CliRun.of("paths", "--service", "orders", traces().toString(), "--max-paths", "1");
		assertThat(run.code()).isZero();
		assertThat(run.out()).contains("""
				Warnings:
				  POST /orders (calls payment+shipping, 1 requests) left local: more than 1 sets of downstreams
				""");
	}

	@Test
	void aMalformedFileIsOneLineNamingTheFileTheSpanAndTheFieldAndExitCode2() throws Exception {
		Path bad = this.dir.resolve("bad.json");
		Files.writeString(bad, ORDERS.replace("\"duration\": 30000", "\"duration\": \"30 ms\""));
		Path yaml = this.dir.resolve("paths.yml");
		CliRun run = CliRun.of("paths", "--service", "orders", bad.toString(), "--yaml", yaml.toString());
		assertThat(run.code()).isEqualTo(2);
		assertThat(run.out()).isEmpty();
		assertThat(run.err()).isEqualTo("pathfence paths: error: " + bad
				+ ": [2] (span 03): field \"duration\": expected a whole number of microseconds, 0 or more, found \"30 ms\"\n");
		assertThat(yaml).doesNotExist();
	}

	@Test
	void aServiceWithoutRequestsInTheTracesIsRefusedNamingTheServicesThereAre() throws Exception {
		Path traces = traces();
		CliRun run = CliRun.of("paths", "--service", "order", traces.toString());
		assertThat(run.code()).isEqualTo(2);
		assertThat(run.err()).isEqualTo(
				"pathfence paths: error: no server span of service 'order' in " + traces + " (services: orders)\n");
	}

	@Test
	void aMissingFileIsRefused() {
		Path missing = this.dir.resolve("nope.json");
		CliRun run = CliRun.of("paths", "--service", "orders", missing.toString());
		assertThat(run.code()).isEqualTo(2);
		assertThat(run.err()).isEqualTo("pathfence paths: error: " + missing + ": no such file\n");
	}

	@Test
	void aSpanGivenInTwoFilesIsRefused() throws Exception {
		Path first = traces();
		Path second = this.dir.resolve("again.json");
		Files.writeString(second, ORDERS);
		CliRun run = CliRun.of("paths", "--service", "orders", first.toString(), second.toString());
		assertThat(run.code()).isEqualTo(2);
		assertThat(run.err()).isEqualTo("pathfence paths: error: " + second + ": span 01 of trace a1 is also in "
				+ first + "; give each span once\n");
	}

	@Test
	void badOptionsAreRefused() throws Exception {
		String traces = traces().toString();
		assertThat(CliRun.of("paths", "--service", "orders", traces, "--format", "xml").err())
			.isEqualTo("pathfence paths: error: --format must be zipkin, jaeger, otlp or auto, not 'xml'\n");
		assertThat(CliRun.of("paths", "--service", "orders", traces, "--permits", "0").err()).isEqualTo(
				"pathfence paths: error: --permits must be at least 1 (the filter refuses a max_concurrency of 0), not 0\n");
		assertThat(CliRun.of("paths", "--service", "orders", traces, "--max-paths", "-1").code()).isEqualTo(2);
		CliRun noService = CliRun.of("paths", traces);
		assertThat(noService.code()).isEqualTo(2);
		assertThat(noService.err()).startsWith("Missing required option: '--service=NAME'");
		CliRun wrongFormat = CliRun.of("paths", "--service", "orders", traces, "--format", "otlp");
		assertThat(wrongFormat.code()).isEqualTo(2);
		assertThat(wrongFormat.err()).contains("expected an OTLP {\"resourceSpans\": [...]} object (--format otlp)");
	}

	@Test
	void withoutASubcommandItSaysWhichThereAre() {
		CliRun run = CliRun.of();
		assertThat(run.code()).isEqualTo(2);
		assertThat(run.err()).contains("a subcommand is required: paths or sct analyze", "paths", "sct");
	}

	@Test
	void hostsTheSctAnalysis() throws Exception {
		Path csv = this.dir.resolve("records.csv");
		Files.writeString(csv, "path,arrival_ms,departure_ms\nstock,0.5,3.25\nstock,1,2\nstock,2.5,9.75\n");
		CliRun run = CliRun.of("sct", "analyze", "--json", "--no-plot", "--window", "all", csv.toString());
		assertThat(run.code()).as(run.err()).isZero();
		assertThat(run.out()).startsWith("{\"path\":\"stock\",\"verdict\":\"INSUFFICIENT_DATA\"");
		CliRun missing = CliRun.of("sct", "analyze", this.dir.resolve("none.csv").toString());
		assertThat(missing.code()).isEqualTo(2);
		assertThat(missing.err()).contains("no such file");
	}

}
