package io.pathfence.demo.grid;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

import io.pathfence.demo.run.MixResult;
import io.pathfence.demo.run.Mode;
import io.pathfence.demo.run.ModeResult;
import io.pathfence.demo.run.PathStats;
import io.pathfence.demo.run.Report;
import io.pathfence.demo.run.Throughput;
import io.pathfence.demo.run.Trace;
import io.pathfence.demo.topology.Topology;

/**
 * The grid's results in Markdown: Table 1 in the paper's layout with the paper's figures
 * beside each row, the rejections and unanswered requests, the criteria per cell, the
 * maximum throughputs (Fig. 12) and the path mix (Fig. 14) in numbers, and every cell's
 * per-path table.
 */
final class GridReport {

	private static final Map<String, String> SHORT = Map.of("sock-shop", "SS", "social-network", "SN", "media-service",
			"MS");

	private final GridPlan plan;

	private final GridResult result;

	GridReport(GridPlan plan, GridResult result) {
		this.plan = plan;
		this.result = result;
	}

	/** Table 1, the other tables and the criteria. */
	String summary() {
		StringBuilder out = new StringBuilder();
		out.append(table1());
		out.append('\n').append(rejections());
		out.append('\n').append(criteria(Mode.PATHFENCE_SCT));
		out.append('\n').append(criteria(Mode.PATHFENCE));
		out.append('\n').append(throughput());
		out.append('\n').append(mix());
		return out.toString();
	}

	private String table1() {
		List<Mode> columns = this.plan.columns();
		StringBuilder t = new StringBuilder();
		t.append("## Table 1: response time and dropped requests under three bursty traces\n\n");
		t.append("Measured during each cell's faulted time, over every request of every path (answered, rejected or "
				+ "failed; timed from its intended send time). Dropped: connections the kernel dropped at the full "
				+ "accept queues of the experiment's own listening sockets (each socket's drop count, from ss -m), "
				+ "each a SYN its client retransmits after 1 s. Columns: " + names(columns)
				+ ". The `paper` rows are the paper's Table 1 (Base, Async., Our); – where it has "
				+ "no such column.\n\n");
		t.append("| App | Trace | |");
		for (String metric : List.of("Avg ms", "p99 ms", "Dropped")) {
			for (Mode mode : columns) {
				t.append(' ').append(metric).append(' ').append(label(mode)).append(" |");
			}
		}
		t.append('\n').append("|---|---|---|").append("--:|".repeat(3 * columns.size())).append('\n');
		for (Topology app : this.result.apps()) {
			for (Trace trace : this.plan.traces()) {
				String name = SHORT.getOrDefault(app.name(), app.name());
				t.append("| ").append(name).append(" | ").append(capitalised(trace.id())).append(" | measured |");
				appendMeasured(t, app, trace, columns, (s) -> s.meanMillis());
				appendMeasured(t, app, trace, columns, (s) -> s.p99Millis());
				for (Mode mode : columns) {
					ModeResult r = find(app, trace, mode);
					t.append(' ')
						.append((r == null || r.listenDrops() < 0) ? "–" : Long.toString(r.listenDrops()))
						.append(" |");
				}
				t.append('\n');
				PaperTable1.Row paper = PaperTable1.row(app.name(), trace.id());
				if (paper != null) {
					t.append("| | | paper |");
					for (int[] figures : List.of(paper.average(), paper.p99(), paper.dropped())) {
						for (Mode mode : columns) {
							int index = paperColumn(mode);
							t.append(' ').append((index < 0) ? "–" : Integer.toString(figures[index])).append(" |");
						}
					}
					t.append('\n');
				}
			}
		}
		return t.toString();
	}

	private void appendMeasured(StringBuilder t, Topology app, Trace trace, List<Mode> columns,
			Function<PathStats, Double> figure) {
		for (Mode mode : columns) {
			ModeResult r = find(app, trace, mode);
			t.append(' ')
				.append((r == null) ? "–" : String.format(Locale.ROOT, "%.0f", figure.apply(r.faultedOverall())))
				.append(" |");
		}
	}

	private String rejections() {
		List<Mode> columns = this.plan.columns();
		StringBuilder t = new StringBuilder();
		t.append("## Requests answered 503, and requests with no answer\n\n");
		t.append("503: turned away at once (PathFence's queue full or its wait timed out). No answer: a connection "
				+ "error or a timeout, at the generator (10 s) or at a service on the way (502 / 504).\n\n");
		t.append("| App | Trace |");
		for (String metric : List.of("503", "no answer")) {
			for (Mode mode : columns) {
				t.append(' ').append(metric).append(' ').append(label(mode)).append(" |");
			}
		}
		t.append('\n').append("|---|---|").append("--:|".repeat(2 * columns.size())).append('\n');
		for (Topology app : this.result.apps()) {
			for (Trace trace : this.plan.traces()) {
				t.append("| ")
					.append(SHORT.getOrDefault(app.name(), app.name()))
					.append(" | ")
					.append(trace)
					.append(" |");
				for (boolean rejected : new boolean[] { true, false }) {
					for (Mode mode : columns) {
						ModeResult r = find(app, trace, mode);
						t.append(' ')
							.append((r == null) ? "–"
									: Integer.toString(rejected ? r.faultedOverall().rejected()
											: r.faultedOverall().connectionOrTimeout()))
							.append(" |");
					}
				}
				t.append('\n');
			}
		}
		return t.toString();
	}

	/** The criteria per cell for one PathFence mode; empty if it did not run. */
	String criteria(Mode fenced) {
		if (!this.plan.modes().contains(fenced)) {
			return "";
		}
		StringBuilder t = new StringBuilder();
		t.append("## Criteria for ")
			.append(fenced)
			.append(" (")
			.append((fenced == Mode.PATHFENCE_SCT) ? "the paper's PathFence, tuned online"
					: "fixed reservations, for " + "reference")
			.append(")\n\n");
		t.append(String.format(Locale.ROOT,
				"(a) p99 <= %.1f x async; (b) p99 <= %.1f x baseline; (c) SockShop only: nothing dropped or left "
						+ "unanswered; (d) every other path through the shared service within %.1f x its fault-free "
						+ "p99 (the fault-free time before the faulted one: the same trace, or steady load where "
						+ "the bursts are the millibottleneck).%n%n",
				Criteria.VERSUS_ASYNC, Criteria.VERSUS_BASELINE, Criteria.OTHER_PATHS));
		t.append("| App | Trace | (a) vs async | (b) vs baseline | (c) no drops | (d) other paths |\n");
		t.append("|---|---|---|---|---|---|\n");
		int met = 0;
		int judged = 0;
		List<String> missed = new ArrayList<>();
		for (Topology app : this.result.apps()) {
			for (Trace trace : this.plan.traces()) {
				ModeResult r = find(app, trace, fenced);
				if (r == null) {
					continue;
				}
				Criteria.Checks checks = Criteria.judge(app, r, find(app, trace, Mode.ASYNC),
						find(app, trace, Mode.BASELINE));
				t.append("| ").append(SHORT.getOrDefault(app.name(), app.name())).append(" | ").append(trace);
				for (Criteria.Check check : new Criteria.Check[] { checks.versusAsync(), checks.versusBaseline(),
						checks.noDrops(), checks.otherPaths() }) {
					t.append(" | ").append((check == null) ? "–" : check.cell());
				}
				t.append(" |\n");
				for (Criteria.Check check : checks.judged()) {
					judged++;
					met += check.met() ? 1 : 0;
				}
				if (checks.judged().stream().anyMatch((check) -> !check.met())) {
					missed.add(app.name() + "/" + trace);
				}
			}
		}
		t.append(String.format(Locale.ROOT, "%n%s: %d of %d checks met%s.%n", fenced, met, judged,
				missed.isEmpty() ? ", in every cell" : "; cells with a miss: " + String.join(", ", missed)));
		return t.toString();
	}

	private String throughput() {
		List<Mode> columns = this.plan.columns();
		StringBuilder t = new StringBuilder();
		t.append("## Fig. 12: maximum throughput, closed loop\n\n");
		t.append(String.format(Locale.ROOT,
				"Users at each level of %s send back to back, no think time (a user told 503 waits its Retry-After "
						+ "of 1 s), %d s measured after %d s: requests answered 2xx per second, the best level first "
						+ "and each level in brackets.%n%n",
				this.plan.users(), this.plan.closedLoop().toSeconds(), this.plan.ramp().toSeconds()));
		t.append("| App |");
		columns.forEach((mode) -> t.append(' ').append(label(mode)).append(" |"));
		t.append('\n').append("|---|").append("--:|".repeat(columns.size())).append('\n');
		this.result.throughput().forEach((app, byMode) -> {
			t.append("| ").append(SHORT.getOrDefault(app, app)).append(" |");
			for (Mode mode : columns) {
				Map<Integer, Throughput> levels = byMode.get(mode);
				if (levels == null) {
					t.append(" – |");
					continue;
				}
				List<String> each = new ArrayList<>();
				levels.forEach((users, figure) -> each
					.add(String.format(Locale.ROOT, "%d: %.0f", users, figure.okPerSecond())));
				t.append(String.format(Locale.ROOT, " %.0f (%s) |", this.result.maxThroughput(app, mode),
						String.join(", ", each)));
			}
			t.append('\n');
		});
		return t.toString();
	}

	private String mix() {
		if (this.result.mixes().isEmpty()) {
			return "";
		}
		Topology app = this.result.mixApp();
		StringBuilder t = new StringBuilder();
		t.append("## Fig. 14: a time-varying path mix on ").append(app.name()).append("\n\n");
		t.append(String.format(Locale.ROOT,
				"%s at %.1f x its base rate from 9 s to 14 s, then %s from 17 s to 22 s (1 s ramps), no "
						+ "millibottleneck. Mean response time of the requests sent in each phase, ms, and the mean "
						+ "active workers of %s (requests holding a permit with PathFence, computing on a worker "
						+ "when event-driven, in a handler otherwise) and what bounds them (the paths' reservations, "
						+ "the workers SCT allows, or Tomcat's threads).%n%n",
				Grid.mixOf(app).first(), io.pathfence.demo.run.PathMix.PEAK, Grid.mixOf(app).second(),
				app.sharedService().map((s) -> s.name()).orElse("the shared service")));
		t.append("| Mode | 0-8 s | 9-14 s | 17-22 s | 23-30 s | whole mix | active workers | allowed |\n");
		t.append("|---|--:|--:|--:|--:|--:|--:|--:|\n");
		for (MixResult mix : this.result.mixes()) {
			t.append("| ").append(mix.mode());
			for (int[] phase : new int[][] { { 0, 8 }, { 9, 14 }, { 17, 22 }, { 23, 30 }, { 0, 30 } }) {
				t.append(" | ").append(String.format(Locale.ROOT, "%.0f", Figures.meanOver(mix, phase[0], phase[1])));
			}
			double allowed = Figures.meanWorkers(mix, 2);
			t.append(String.format(Locale.ROOT, " | %.1f | %s |%n", Figures.meanWorkers(mix, 1),
					(allowed < 0) ? "threads" : String.format(Locale.ROOT, "%.1f", allowed)));
		}
		return t.toString();
	}

	/** Every cell's per-path table, as the demo prints one. */
	String cells() {
		StringBuilder t = new StringBuilder("# Every cell, per path\n");
		for (Topology app : this.result.apps()) {
			for (Trace trace : this.plan.traces()) {
				List<ModeResult> results = new ArrayList<>();
				for (Mode mode : this.plan.columns()) {
					ModeResult r = find(app, trace, mode);
					if (r != null) {
						results.add(r);
					}
				}
				t.append("\n## ").append(app.name()).append(", ").append(trace).append(" trace\n\n");
				t.append(Report.table(results, app)).append('\n').append(Report.drops(results));
			}
		}
		return t.toString();
	}

	private ModeResult find(Topology app, Trace trace, Mode mode) {
		return this.result.cells()
			.stream()
			.filter((cell) -> cell.topology().name().equals(app.name()) && cell.trace() == trace
					&& cell.result().mode() == mode)
			.map(Cell::result)
			.findFirst()
			.orElse(null);
	}

	private static int paperColumn(Mode mode) {
		return switch (mode) {
			case BASELINE -> 0;
			case ASYNC -> 1;
			case PATHFENCE_SCT -> 2;
			default -> -1;
		};
	}

	static String label(Mode mode) {
		return switch (mode) {
			case BASELINE -> "Base";
			case ASYNC -> "Async";
			case PATHFENCE_SCT -> "Our";
			case PATHFENCE -> "Fixed";
			case PATHFENCE_LEARNED -> "Learned";
			case VIRTUAL_THREADS -> "VT";
			case ENVOY -> "Envoy";
			case ENVOY_LEARNED -> "Envoy learned";
		};
	}

	private static String names(List<Mode> columns) {
		List<String> names = new ArrayList<>();
		for (Mode mode : columns) {
			names.add(label(mode) + " = " + mode);
		}
		return String.join(", ", names);
	}

	private static String capitalised(String word) {
		return Character.toUpperCase(word.charAt(0)) + word.substring(1);
	}

}
