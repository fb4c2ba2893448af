package io.pathfence.demo.whatif;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import io.pathfence.whatif.profile.ProcessGroupCpu;

/**
 * What a process has done so far, from {@code /proc}: its CPU time (every thread, as
 * {@link ProcessGroupCpu} counts it) and its I/O through system calls
 * ({@code /proc/<pid>/io}: bytes read and written). A demo service's I/O is its sockets:
 * the calls it serves and the calls it makes downstream, each a request and an answer of
 * about the same size, so bytes over a window tell how much calling went on in it where
 * the service's own counters cannot be read (a stopped service answers no scrape).
 *
 * @param cpuNanos CPU time used
 * @param ioBytes bytes read and written ({@code rchar + wchar})
 */
record ProcessWork(long cpuNanos, long ioBytes) {

	static final ProcessWork NONE = new ProcessWork(0, 0);

	private static final ProcessGroupCpu CPU = new ProcessGroupCpu();

	/**
	 * Reads the process's totals.
	 * @param pid the process
	 * @return its work so far
	 * @throws IOException if it has exited or {@code /proc} cannot be read
	 */
	static ProcessWork of(long pid) throws IOException {
		long cpu = CPU.usedByProcess(pid).toNanos();
		long bytes = 0;
		for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "io"))) {
			int colon = line.indexOf(':');
			if (colon < 0) {
				continue;
			}
			String field = line.substring(0, colon);
			if (field.equals("rchar") || field.equals("wchar")) {
				bytes += Long.parseLong(line.substring(colon + 1).strip());
			}
		}
		return new ProcessWork(cpu, bytes);
	}

	ProcessWork plus(ProcessWork other) {
		return new ProcessWork(this.cpuNanos + other.cpuNanos, this.ioBytes + other.ioBytes);
	}

	ProcessWork minus(ProcessWork other) {
		return new ProcessWork(this.cpuNanos - other.cpuNanos, this.ioBytes - other.ioBytes);
	}

}
