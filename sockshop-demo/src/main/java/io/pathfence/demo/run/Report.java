package io.pathfence.demo.run;

import java.util.List;
import java.util.Locale;

import io.pathfence.demo.topology.Topology;

/**
 * The paper's Table 1 for one run, as a Markdown table: per mode and path, the response
 * times and the requests that were rejected, took over a second, or failed, during the
 * faulted time, next to the path's own fault-free p99. Connection errors and timeouts are
 * counted apart from any other error answer, so that one cannot pass for the other; the
 * connections the kernel dropped at full accept queues (the paper's dropped requests)
 * follow, per mode.
 */
public final class Report {

	private Report() {
	}

	public static String table(List<ModeResult> results, Topology topology) {
		StringBuilder table = new StringBuilder();
		table.append(
				"| mode | path | requests | mean ms | p50 ms | p99 ms | p99.9 ms | fault-free p99 ms | p99 / fault-free "
						+ "| 503 rejected | over 1 s | conn. errors / timeouts | other errors |\n");
		table.append("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
		for (ModeResult result : results) {
			for (String path : topology.paths()) {
				PathStats f = result.faulted().get(path);
				PathStats reference = result.faultFree().get(path);
				boolean measured = reference.requests() > 0;
				table.append(String.format(Locale.ROOT,
						"| %s | %s | %d | %.0f | %.0f | %.0f | %.0f | %s | %s | %d | %d | %d | %d |%n", result.mode(),
						path, f.requests(), f.meanMillis(), f.p50Millis(), f.p99Millis(), f.p999Millis(),
						measured ? String.format(Locale.ROOT, "%.0f", reference.p99Millis()) : "–",
						measured ? String.format(Locale.ROOT, "%.1f x", f.p99Millis() / reference.p99Millis()) : "–",
						f.rejected(), f.overOneSecond(), f.connectionOrTimeout(), f.otherErrors()));
			}
		}
		return table.toString();
	}

	/** Per mode, the connections the kernel dropped at full accept queues. */
	public static String drops(List<ModeResult> results) {
		StringBuilder lines = new StringBuilder();
		for (ModeResult result : results) {
			lines.append(String.format(Locale.ROOT, "%s: %s%n", result.mode(), (result.listenDrops() < 0)
					? "dropped connections unknown (no ss, or an application run elsewhere)"
					: result.listenDrops() + " connections dropped at full accept queues (SYNs to retransmit)"));
		}
		return lines.toString();
	}

}
