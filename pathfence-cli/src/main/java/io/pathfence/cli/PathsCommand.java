package io.pathfence.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

import io.pathfence.cli.traces.MalformedTraceException;
import io.pathfence.cli.traces.TraceFile;
import io.pathfence.cli.traces.TraceFormat;
import io.pathfence.discovery.PathPlan;
import io.pathfence.discovery.PathPlanner;
import io.pathfence.discovery.config.FilterJson;
import io.pathfence.discovery.config.GeneratedConfig;
import io.pathfence.discovery.config.StarterYaml;
import io.pathfence.discovery.trace.InvalidTraceException;
import io.pathfence.discovery.trace.RouteCriticalPath;
import io.pathfence.discovery.trace.Span;
import io.pathfence.discovery.trace.TraceLearning;
import io.pathfence.discovery.trace.TraceTree;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code pathfence paths --service orders traces.json}: the routes of a service and the
 * downstreams each calls, the paths they make, each route's critical path, and the
 * starter's and the filter's configuration for them.
 */
@Command(name = "paths", mixinStandardHelpOptions = true,
		description = {
				"Learns a service's execution paths from Zipkin v2, Jaeger or OTLP JSON traces:"
						+ " its routes and the downstream services each calls, routes with the same downstreams grouped"
						+ " into one path, and per route the share of each service in its requests' critical paths.",
				"Writes the starter's pathfence.paths block (--yaml) and the Envoy filter's paths (--filter-json)." },
		exitCodeListHeading = "Exit codes:%n", exitCodeList = { "0:learned and written", "1:internal error",
				"2:bad input or usage (one line names the file, the span and the field)" })
final class PathsCommand implements Callable<Integer> {

	@Option(names = "--service", required = true, paramLabel = "NAME",
			description = "the service whose routes to learn, as its spans name it")
	String service;

	@Parameters(arity = "1..*", paramLabel = "<traces.json>",
			description = "trace files; each may hold several JSON documents, one after another")
	List<Path> files;

	@Option(names = "--format", defaultValue = "auto", paramLabel = "FORMAT",
			description = "zipkin, jaeger, otlp or auto (default: told from each document's shape)")
	String format;

	@Option(names = "--yaml", paramLabel = "FILE", description = "write the starter's pathfence.paths block here")
	Path yaml;

	@Option(names = "--filter-json", paramLabel = "FILE", description = "write the Envoy filter's configuration here")
	Path filterJson;

	@Option(names = "--json", description = "print the report as one JSON object instead of text")
	boolean json;

	@Option(names = "--max-paths", defaultValue = "" + PathPlanner.DEFAULT_MAX_PATHS,
			description = "the most paths proposed; the least used sets of downstreams stay local (default ${DEFAULT-VALUE})")
	int maxPaths;

	@Option(names = "--max-routes", defaultValue = "" + PathPlanner.DEFAULT_MAX_ROUTES,
			description = "the most routes placed on paths; the least used stay local (default ${DEFAULT-VALUE})")
	int maxRoutes;

	@Option(names = "--permits", defaultValue = "10",
			description = "permits (and the filter's max_concurrency) written for every path (default ${DEFAULT-VALUE})")
	int permits;

	@CommandLine.Spec
	CommandLine.Model.CommandSpec spec;

	@Override
	public Integer call() throws IOException {
		PrintWriter out = this.spec.commandLine().getOut();
		PrintWriter err = this.spec.commandLine().getErr();
		try {
			checkOptions();
			List<TraceTree> traces = traces();
			TraceLearning learning = TraceLearning.of(this.service, traces);
			if (learning.requests().isEmpty()) {
				throw new BadInput("no server span of service '" + this.service + "' in " + names() + " (services: "
						+ String.join(", ", learning.services()) + ")");
			}
			PathPlan plan = new PathPlanner(this.maxPaths, this.maxRoutes).plan(learning.routes());
			List<RouteCriticalPath> critical = RouteCriticalPath.of(learning);
			GeneratedConfig starter = StarterYaml.write(plan, this.permits, List
				.of("pathfence.paths of " + this.service + ", learned by `pathfence paths` from " + names() + "."));
			GeneratedConfig filter = FilterJson.write(plan, this.permits);
			List<String> warnings = warnings(plan, starter, filter);
			write(this.yaml, starter.text());
			write(this.filterJson, filter.text());
			Report report = new Report(this.service, names(), traces.size(), learning, plan, critical, warnings,
					this.yaml, this.filterJson);
			out.print(this.json ? report.json() : report.text());
			out.flush();
			return 0;
		}
		catch (BadInput ex) {
			err.println("pathfence paths: error: " + ex.getMessage());
			err.flush();
			return 2;
		}
	}

	private void checkOptions() throws BadInput {
		if (this.service.isBlank()) {
			throw new BadInput("--service: a service name is required");
		}
		if (this.maxPaths < 0) {
			throw new BadInput("--max-paths must be 0 or more, not " + this.maxPaths);
		}
		if (this.maxRoutes < 0) {
			throw new BadInput("--max-routes must be 0 or more, not " + this.maxRoutes);
		}
		if (this.permits < 1) {
			throw new BadInput(
					"--permits must be at least 1 (the filter refuses a max_concurrency of 0), not " + this.permits);
		}
		format();
	}

	private TraceFormat format() throws BadInput {
		if ("auto".equalsIgnoreCase(this.format)) {
			return null;
		}
		try {
			return TraceFormat.valueOf(this.format.toUpperCase(Locale.ROOT));
		}
		catch (IllegalArgumentException ex) {
			throw new BadInput("--format must be zipkin, jaeger, otlp or auto, not '" + this.format + "'");
		}
	}

	private List<TraceTree> traces() throws BadInput, IOException {
		List<Span> all = new ArrayList<>();
		Map<String, Path> fileOf = new HashMap<>();
		TraceFormat traceFormat = format();
		for (Path file : this.files) {
			List<Span> spans;
			try {
				spans = TraceFile.read(file, traceFormat);
			}
			catch (MalformedTraceException ex) {
				throw new BadInput(file + ": " + ex.getMessage());
			}
			catch (NoSuchFileException ex) {
				throw new BadInput(file + ": no such file");
			}
			for (Span span : spans) {
				Path earlier = fileOf.putIfAbsent(span.traceId() + "/" + span.spanId(), file);
				if (earlier != null && !earlier.equals(file)) {
					throw new BadInput(file + ": span " + span.spanId() + " of trace " + span.traceId() + " is also in "
							+ earlier + "; give each span once");
				}
			}
			all.addAll(spans);
		}
		try {
			return TraceTree.of(all);
		}
		catch (InvalidTraceException ex) {
			// Each file was checked alone, so only spans of one trace split over files
			// get here.
			throw new BadInput(names() + ": " + ex.getMessage());
		}
	}

	private static List<String> warnings(PathPlan plan, GeneratedConfig starter, GeneratedConfig filter) {
		List<String> warnings = new ArrayList<>(plan.warnings());
		for (String warning : starter.warnings()) {
			if (!warnings.contains(warning)) {
				warnings.add(warning);
			}
		}
		for (String warning : filter.warnings()) {
			if (!warnings.contains(warning)) {
				warnings.add(warning);
			}
		}
		return warnings;
	}

	private static void write(Path file, String text) throws IOException, BadInput {
		if (file == null) {
			return;
		}
		try {
			Path parent = file.toAbsolutePath().getParent();
			if (parent != null) {
				Files.createDirectories(parent);
			}
			Files.writeString(file, text, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new BadInput(file + ": cannot write: " + ex.getMessage());
		}
	}

	private String names() {
		return String.join(", ", this.files.stream().map(Path::toString).toList());
	}

	/** Input the command refuses: one line, exit code 2. */
	static final class BadInput extends Exception {

		private static final long serialVersionUID = 1L;

		BadInput(String message) {
			super(message, null, false, false);
		}

	}

}
