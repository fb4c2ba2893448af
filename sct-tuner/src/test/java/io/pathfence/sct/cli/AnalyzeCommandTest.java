package io.pathfence.sct.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.pathfence.sct.ConcurrencyRecorder;
import io.pathfence.sct.Sample;
import io.pathfence.sct.validation.SimulatedServer;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class AnalyzeCommandTest {

	@TempDir
	Path dir;

	private final StringWriter out = new StringWriter();

	private final StringWriter err = new StringWriter();

	@Test
	void jsonGivesOneObjectPerPathWithTheRangeAndWritesBothPlots() throws IOException {
		Path csv = dir.resolve("records.csv");
		List<String> lines = new ArrayList<>(List.of("path,arrival_ms,departure_ms"));
		lines.addAll(simulatedRecords("orders", new SimulatedServer.Shape("orders", 4, 2, 6, 0.02), 24, 60));
		// A second path with three requests: too little to decide.
		lines.addAll(List.of("stock,0.5,3.25", "stock,1,2", "stock,2.5,9.75"));
		lines.sort((a, b) -> a.startsWith("path") ? -1 : b.startsWith("path") ? 1
				: Double.compare(Double.parseDouble(a.split(",")[1]), Double.parseDouble(b.split(",")[1])));
		Files.write(csv, lines, StandardCharsets.UTF_8);

		int code = run("analyze", "--json", "--window", "all", csv.toString());

		assertThat(code).as(err.toString()).isZero();
		String[] objects = out.toString().strip().split("\n");
		assertThat(objects).hasSize(2);
		JsonNode orders = JsonMapper.builder().build().readTree(objects[0]);
		assertThat(orders.get("path").asString()).isEqualTo("orders");
		assertThat(orders.get("verdict").asString()).isEqualTo("PLATEAU");
		assertThat(orders.get("recommended").asInt()).isEqualTo(orders.get("q_lower").asInt());
		assertThat(orders.get("q_lower").asInt()).isBetween(13, 19);
		assertThat(orders.get("q_upper").asInt()).isGreaterThanOrEqualTo(orders.get("q_lower").asInt());
		assertThat(orders.get("plateau_throughput").asDouble()).isBetween(1600.0, 2000.0);
		JsonNode stock = JsonMapper.builder().build().readTree(objects[1]);
		assertThat(stock.get("verdict").asString()).isEqualTo("INSUFFICIENT_DATA");
		assertThat(stock.get("recommended").isNull()).isTrue();

		byte[] png = Files.readAllBytes(dir.resolve("records.orders.png"));
		assertThat(png).startsWith(0x89, 'P', 'N', 'G');
		assertThat(Files.readString(dir.resolve("records.orders.svg"))).contains("<svg");
		assertThat(dir.resolve("records.stock.png")).exists();
	}

	@Test
	void textNamesTheRangeTheRecommendationAndThePlots() throws IOException {
		Path csv = dir.resolve("r.csv");
		List<String> lines = new ArrayList<>(List.of("arrival_ms,departure_ms,path,extra"));
		for (String r : simulatedRecords("a", new SimulatedServer.Shape("a", 2, 1, 9, 0.05), 30, 30)) {
			String[] f = r.split(",");
			lines.add(f[1] + "," + f[2] + "," + f[0] + ",x");
		}
		Files.write(csv, lines, StandardCharsets.UTF_8);

		int code = run("analyze", "--plot-dir", dir.resolve("plots").toString(), csv.toString());

		assertThat(code).as(err.toString()).isZero();
		assertThat(out.toString()).startsWith("a: PLATEAU  range [")
			.contains("recommended ")
			.contains("(600 samples of 50 ms)")
			.contains(dir.resolve("plots").resolve("r.a.png").toString());
		assertThat(dir.resolve("plots").resolve("r.a.svg")).exists();
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|',
			textBlock = """
					empty file                 | ''                                                   | row 1, column path: empty file: expected the header path,arrival_ms,departure_ms
					blank lines only           | '\\n  \\n'                                           | row 3, column path: only blank lines: expected the header path,arrival_ms,departure_ms
					header only                | 'path,arrival_ms,departure_ms\\n'                    | row 2, column path: no records after the header
					missing column             | 'path,arrival_ms\\na,1\\n'                           | row 1, column departure_ms: missing from the header (expected path,arrival_ms,departure_ms)
					missing value              | 'path,arrival_ms,departure_ms\\na,1,2\\nb,3\\n'      | row 3, column departure_ms: missing value
					negative time              | 'path,arrival_ms,departure_ms\\na,-1,2\\n'           | row 2, column arrival_ms: negative time -1
					unsorted arrivals          | 'path,arrival_ms,departure_ms\\na,5,6\\na,4.5,7\\n'  | row 3, column arrival_ms: arrival 4.5 is before the previous row's; rows must be sorted by arrival
					departure before arrival   | 'path,arrival_ms,departure_ms\\na,5,4\\n'            | row 2, column departure_ms: departure 4 is before arrival 5
					not a number               | 'path,arrival_ms,departure_ms\\na,5,x\\n'            | row 2, column departure_ms: not a number: 'x'
					empty path                 | 'path,arrival_ms,departure_ms\\n,5,6\\n'             | row 2, column path: empty
					unclosed quote             | 'path,arrival_ms,departure_ms\\n"a,5,6\\n'           | row 2, column path: quoted field not closed on its line
					text after a quote         | 'path,arrival_ms,departure_ms\\na,"5"x,6\\n'         | row 2, column arrival_ms: text after the closing quote
					""")
	void badInputGetsOneLineNamingRowAndColumnAndExitCodeTwo(String name, String content, String message)
			throws IOException {
		Path csv = dir.resolve("bad.csv");
		Files.writeString(csv, content.replace("\\n", "\n"), StandardCharsets.UTF_8);

		int code = run("analyze", "--no-plot", csv.toString());

		assertThat(code).isEqualTo(2);
		assertThat(out.toString()).isEmpty();
		assertThat(err.toString()).isEqualTo("sct: error: " + csv + ": " + message + System.lineSeparator());
	}

	@Test
	void quotedFieldsMayHoldCommasAndDoubledQuotes() throws IOException {
		Path csv = dir.resolve("quoted.csv");
		Files.writeString(csv, """
				path,arrival_ms,departure_ms
				"orders, eu",0,2
				"say ""hi""\", "1.5" ,3
				""", StandardCharsets.UTF_8);

		int code = run("analyze", "--json", "--no-plot", csv.toString());

		assertThat(code).as(err.toString()).isZero();
		String[] objects = out.toString().strip().split("\n");
		assertThat(objects).hasSize(2);
		JsonMapper json = JsonMapper.builder().build();
		assertThat(json.readTree(objects[0]).get("path").asString()).isEqualTo("orders, eu");
		assertThat(json.readTree(objects[1]).get("path").asString()).isEqualTo("say \"hi\"");
	}

	@Test
	void recordsSpanningTooManyIntervalsAreBadInputNotACrash() throws IOException {
		Path csv = dir.resolve("long.csv");
		// 60 s of 1 us intervals: 60 million, more than a replay holds.
		Files.writeString(csv, "path,arrival_ms,departure_ms\na,0,1\na,60000,60001\n", StandardCharsets.UTF_8);

		int code = run("analyze", "--no-plot", "--window", "all", "--interval", "0.001ms", csv.toString());

		assertThat(code).isEqualTo(2);
		assertThat(out.toString()).isEmpty();
		assertThat(err.toString()).isEqualTo("sct: error: " + csv + ": the records of path 'a' span 60001001"
				+ " intervals of 1000 ns; at most 10000000 are replayed at once: use a longer --interval or split the"
				+ " file" + System.lineSeparator());
	}

	@Test
	void aWindowOfTooManyIntervalsIsBadInput() throws IOException {
		Path csv = dir.resolve("r.csv");
		Files.writeString(csv, "path,arrival_ms,departure_ms\na,0,1\n", StandardCharsets.UTF_8);

		int code = run("analyze", "--no-plot", "--window", "60s", "--interval", "0.001ms", csv.toString());

		assertThat(code).isEqualTo(2);
		assertThat(err.toString()).isEqualTo("sct: error: " + csv + ": --window 60s holds 60000000 intervals of"
				+ " 0.001ms; at most 100000: use --interval 0.6ms or more" + System.lineSeparator());
	}

	@Test
	void aMissingFileIsBadInputToo() {
		int code = run("analyze", dir.resolve("nope.csv").toString());

		assertThat(code).isEqualTo(2);
		assertThat(err.toString().strip()).isEqualTo("sct: error: " + dir.resolve("nope.csv") + ": no such file");
	}

	@Test
	void aBadOptionIsAUsageError() {
		int code = run("analyze", "--interval", "soon", "x.csv");

		assertThat(code).isEqualTo(2);
		assertThat(err.toString()).contains("not a duration: 'soon'");
	}

	private int run(String... args) {
		return SctCommand.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
	}

	/**
	 * The simulated service under bursty load for {@code seconds}, with its reservation
	 * at {@code limit}.
	 */
	static List<String> simulatedRecords(String path, SimulatedServer.Shape shape, int limit, int seconds) {
		List<double[]> requests = new ArrayList<>();
		ConcurrencyRecorder capture = new ConcurrencyRecorder() {
			@Override
			public long arrived() {
				throw new UnsupportedOperationException();
			}

			@Override
			public void arrived(long nowNanos) {
			}

			@Override
			public void departed(long arrivalNanos) {
				throw new UnsupportedOperationException();
			}

			@Override
			public void departed(long arrivalNanos, long nowNanos) {
				requests.add(new double[] { arrivalNanos / 1e6, nowNanos / 1e6 });
			}

			@Override
			public void waitStarted(long nowNanos) {
			}

			@Override
			public void waitEnded(long nowNanos) {
			}

			@Override
			public List<Sample> drain() {
				return List.of();
			}

			@Override
			public List<Sample> drain(long nowNanos) {
				return List.of();
			}

			@Override
			public List<Sample> snapshot(long nowNanos) {
				return List.of();
			}
		};
		SimulatedServer.Session.open(shape, SimulatedServer.Load.bursty(), limit, 5).run(seconds, capture, null);
		requests.sort((a, b) -> Double.compare(a[0], b[0]));
		List<String> lines = new ArrayList<>(requests.size());
		for (double[] r : requests) {
			lines.add(String.format(Locale.ROOT, "%s,%.6f,%.6f", path, r[0], r[1]));
		}
		return lines;
	}

}
