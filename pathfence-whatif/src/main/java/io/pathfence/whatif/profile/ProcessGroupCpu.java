package io.pathfence.whatif.profile;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The CPU time a service has used so far, from {@code /proc}: user and system time of
 * every process of its process group, plus what their reaped children used. Under the
 * pause agent the service's pid is also its group's id, so a service made of a launcher
 * script and the process it starts is counted whole.
 * <p>
 * The kernel counts in clock ticks ({@code getconf CLK_TCK}, 100 a second on Linux), so a
 * profiling run should last long enough for the service to use many of them.
 */
public final class ProcessGroupCpu {

	// Fields of /proc/<pid>/stat after the command name, counted from the state (0).
	private static final int PGRP = 2;

	private static final int UTIME = 11;

	private static final int CSTIME = 14;

	private static volatile Long ticksPerSecond;

	private final Path proc;

	/**
	 * Reads the real {@code /proc}.
	 */
	public ProcessGroupCpu() {
		this(Path.of("/proc"));
	}

	ProcessGroupCpu(Path proc) {
		this.proc = proc;
	}

	/**
	 * The CPU time used so far by the process group {@code pgid}.
	 * @param pgid the group's id (the service's pid under the pause agent)
	 * @return user plus system time of its members and their reaped children
	 * @throws IOException if {@code /proc} cannot be read, or the group has no member
	 * (the service has exited)
	 */
	public Duration used(long pgid) throws IOException {
		long ticks = 0;
		int members = 0;
		try (DirectoryStream<Path> entries = Files.newDirectoryStream(this.proc, "[0-9]*")) {
			for (Path entry : entries) {
				long[] fields = statFields(entry.resolve("stat"));
				if (fields != null && fields[PGRP] == pgid) {
					members++;
					ticks += ticks(fields);
				}
			}
		}
		if (members == 0) {
			throw new IOException("no process of group " + pgid + " in " + this.proc + ": the service has exited");
		}
		return duration(ticks);
	}

	/**
	 * The CPU time used so far by one process: every thread of it, plus its reaped
	 * children. Reads one file, so it may be called around each pause.
	 * @param pid the process
	 * @return user plus system time of its threads and reaped children
	 * @throws IOException if {@code /proc} cannot be read, or the process has exited
	 */
	public Duration usedByProcess(long pid) throws IOException {
		long[] fields = statFields(this.proc.resolve(Long.toString(pid)).resolve("stat"));
		if (fields == null) {
			throw new IOException("no process " + pid + " in " + this.proc + ": the service has exited");
		}
		return duration(ticks(fields));
	}

	/** User and system time of a process and of its reaped children, in ticks. */
	private static long ticks(long[] fields) {
		long ticks = 0;
		for (int field = UTIME; field <= CSTIME; field++) {
			ticks += fields[field];
		}
		return ticks;
	}

	private static Duration duration(long ticks) throws IOException {
		return Duration.ofNanos(ticks * TimeUnit.SECONDS.toNanos(1) / ticksPerSecond());
	}

	/**
	 * The numeric fields after the command name, or null for a process gone meanwhile.
	 */
	private static long[] statFields(Path stat) throws IOException {
		String text;
		try {
			text = Files.readString(stat, StandardCharsets.UTF_8);
		}
		catch (NoSuchFileException ex) {
			return null;
		}
		catch (IOException ex) {
			// A process that exits while its file is read answers "no such process".
			if (Files.exists(stat)) {
				throw ex;
			}
			return null;
		}
		// The command name is in parentheses and may hold spaces and parentheses.
		String[] words = text.substring(text.lastIndexOf(')') + 2).strip().split(" ");
		long[] fields = new long[CSTIME + 1];
		for (int i = 1; i <= CSTIME; i++) {
			fields[i] = Long.parseLong(words[i]);
		}
		return fields;
	}

	/**
	 * Clock ticks a second, as {@code getconf CLK_TCK} says.
	 * @return the kernel's user-visible tick rate
	 * @throws IOException if {@code getconf} cannot tell
	 */
	static long ticksPerSecond() throws IOException {
		Long known = ticksPerSecond;
		if (known == null) {
			Process getconf = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
			String answer = new String(getconf.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip();
			try {
				if (getconf.waitFor() != 0) {
					throw new IOException("getconf CLK_TCK failed: " + answer);
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IOException("interrupted while asking getconf for CLK_TCK", ex);
			}
			try {
				known = Long.parseLong(answer);
			}
			catch (NumberFormatException ex) {
				throw new IOException("getconf CLK_TCK answered '" + answer + "', not a number of ticks", ex);
			}
			ticksPerSecond = known;
		}
		return known;
	}

}
