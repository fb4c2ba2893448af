package io.pathfence.demo.run;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A process's CPU time so far, from {@code /proc/PID/stat} (user and system time, in
 * clock ticks).
 */
final class ProcessCpu {

	/** The kernel's clock ticks per second ({@code USER_HZ}), 100 on Linux. */
	static final int TICKS_PER_SECOND = 100;

	private ProcessCpu() {
	}

	/** The process's user and system ticks, or -1 when they cannot be read. */
	static long ticks(long pid) {
		try {
			return parse(Files.readString(Path.of("/proc", Long.toString(pid), "stat")));
		}
		catch (IOException | RuntimeException ex) {
			return -1;
		}
	}

	/** utime + stime: fields 14 and 15, counted after the command name in parentheses. */
	static long parse(String stat) {
		String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
		// fields[0] is field 3 (state): utime is field 14, stime field 15.
		return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
	}

}
