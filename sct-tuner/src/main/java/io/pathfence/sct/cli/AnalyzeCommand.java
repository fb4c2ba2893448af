package io.pathfence.sct.cli;

import io.pathfence.sct.RequestRecord;
import io.pathfence.sct.Sample;
import io.pathfence.sct.Sct;
import io.pathfence.sct.SctConfig;
import io.pathfence.sct.SctResult;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code sct analyze records.csv}: one SCT analysis per path, printed, and a scatter plot
 * per path.
 */
@Command(name = "analyze", mixinStandardHelpOptions = true,
		description = {
				"Reads request records (header path,arrival_ms,departure_ms; times in milliseconds, fractions allowed;"
						+ " rows sorted by arrival) and analyses each path's last window of samples.",
				"Writes <plot-dir>/<csv name>.<path>.png and .svg: throughput and response time against concurrency,"
						+ " with Q_lower and Q_upper marked." },
		exitCodeListHeading = "Exit codes:%n",
		exitCodeList = { "0:analysed (whatever the verdicts)", "1:internal error", "2:bad input or usage" })
final class AnalyzeCommand implements Callable<Integer> {

	@Parameters(index = "0", paramLabel = "<records.csv>", description = "request records, one per row")
	Path records;

	@Option(names = "--interval", defaultValue = "50ms", converter = DurationConverter.class,
			description = "sampling interval (default ${DEFAULT-VALUE}; 100ms also works well)")
	Duration interval;

	@Option(names = "--window", defaultValue = "60s",
			description = "analyse the last WINDOW of each path, or 'all' (default ${DEFAULT-VALUE})")
	String window;

	@Option(names = "--level-width", defaultValue = "1",
			description = "group samples on multiples of this concurrency (default ${DEFAULT-VALUE})")
	int levelWidth;

	@Option(names = "--json", description = "print one JSON object per path instead of text")
	boolean json;

	@Option(names = "--plot-dir", paramLabel = "DIR",
			description = "where the plots go (default: the directory of the records file)")
	Path plotDir;

	@Option(names = "--no-plot", description = "do not write plots")
	boolean noPlot;

	@CommandLine.Spec
	CommandLine.Model.CommandSpec spec;

	@Override
	public Integer call() throws IOException {
		PrintWriter out = spec.commandLine().getOut();
		PrintWriter err = spec.commandLine().getErr();
		SctConfig config;
		Map<String, List<Sample>> byPath;
		try {
			config = config();
			byPath = replay(read(), config);
		}
		catch (BadInputException e) {
			err.println("sct: error: " + records + ": " + e.getMessage());
			return 2;
		}
		for (Map.Entry<String, List<Sample>> entry : byPath.entrySet()) {
			String path = entry.getKey();
			List<Sample> samples = lastWindow(entry.getValue(), config);
			SctResult result = Sct.analyzer(config).analyze(samples);
			Path[] plots = noPlot ? null : plot(path, samples, result);
			if (json) {
				out.println(Json.of(path, result, samples.size() * config.interval().toNanos() / 1e9));
			}
			else {
				printText(out, path, samples, result, config, plots);
			}
		}
		out.flush();
		return 0;
	}

	private SctConfig config() throws BadInputException {
		SctConfig.Builder b = SctConfig.builder().interval(interval);
		if ("all".equalsIgnoreCase(window)) {
			// The window only cuts the samples to analyse, which "all" does not; one
			// interval passes every check.
			b.window(interval);
		}
		else {
			Duration w;
			try {
				w = new DurationConverter().convert(window);
			}
			catch (CommandLine.TypeConversionException e) {
				throw new BadInputException("--window: " + e.getMessage());
			}
			if (w.compareTo(interval) < 0) {
				throw new BadInputException("--window " + window + " is shorter than --interval");
			}
			long intervals = w.dividedBy(interval);
			if (intervals > SctConfig.MAX_INTERVALS_PER_WINDOW) {
				throw new BadInputException("--window " + window + " holds " + intervals + " intervals of "
						+ millis(interval) + "; at most " + SctConfig.MAX_INTERVALS_PER_WINDOW + ": use --interval "
						+ millis(SctConfig.minimumInterval(w)) + " or more");
			}
			b.window(w);
		}
		if (levelWidth < 1) {
			throw new BadInputException("--level-width must be at least 1");
		}
		return b.levelWidth(levelWidth).build();
	}

	private static Map<String, List<Sample>> replay(List<RequestRecord> requests, SctConfig config)
			throws BadInputException {
		try {
			return Sct.samplesByPath(requests, config);
		}
		catch (IllegalArgumentException e) {
			// The one refusal samplesByPath documents: a path whose records span more
			// intervals than fit in memory.
			throw new BadInputException(e.getMessage() + ": use a longer --interval or split the file");
		}
	}

	private static String millis(Duration d) {
		return BigDecimal.valueOf(d.toNanos(), 6).stripTrailingZeros().toPlainString() + "ms";
	}

	private List<RequestRecord> read() throws IOException, BadInputException {
		try (BufferedReader in = Files.newBufferedReader(records, StandardCharsets.UTF_8)) {
			return RecordsCsv.read(in);
		}
		catch (NoSuchFileException e) {
			throw new BadInputException("no such file");
		}
		catch (java.nio.charset.MalformedInputException e) {
			throw new BadInputException("not UTF-8 text");
		}
	}

	private List<Sample> lastWindow(List<Sample> samples, SctConfig config) {
		if ("all".equalsIgnoreCase(window)) {
			return samples;
		}
		int keep = config.intervalsPerWindow();
		return samples.subList(Math.max(0, samples.size() - keep), samples.size());
	}

	private Path[] plot(String path, List<Sample> samples, SctResult result) throws IOException {
		Path dir = plotDir != null ? plotDir : records.toAbsolutePath().getParent();
		Files.createDirectories(dir);
		String csv = records.getFileName().toString().replaceFirst("\\.csv$", "");
		Path base = dir.resolve(csv + "." + path.replaceAll("[^A-Za-z0-9._-]", "_"));
		ScatterPlot.write(path, samples, result, base);
		return new Path[] { Path.of(base + ".png"), Path.of(base + ".svg") };
	}

	private static void printText(PrintWriter out, String path, List<Sample> samples, SctResult result,
			SctConfig config, Path[] plots) {
		String range = result.qLower().isPresent()
				? "[" + result.qLower().getAsInt() + ", " + result.qUpper().getAsInt() + "]" : "unknown";
		String recommended = result.recommended().isPresent() ? String.valueOf(result.recommended().getAsInt())
				: "none";
		String plateau = result.plateauThroughput().isPresent()
				? String.format(Locale.ROOT, "%.1f req/s", result.plateauThroughput().getAsDouble()) : "unknown";
		out.printf(Locale.ROOT, "%s: %s  range %s  recommended %s  plateau %s  (%d samples of %d ms)%n", path,
				result.verdict(), range, recommended, plateau, samples.size(), config.interval().toMillis());
		out.println("  " + result.reason());
		if (plots != null) {
			out.println("  plot: " + plots[0] + ", " + plots[1]);
		}
	}

}
