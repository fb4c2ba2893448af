package io.pathfence.benchmarks.starter;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The benchmark's service, one JVM process on loopback started for one variant in one
 * round. It is ready when it prints its ready line, which also says its port and what is
 * on its request path.
 */
final class AppProcess implements AutoCloseable {

	private static final Pattern READY = Pattern
		.compile("^bench-app ready port=(\\d+) pathfence-beans=(\\d+) filters=(.*)$", Pattern.MULTILINE);

	private static final Duration START_TIMEOUT = Duration.ofSeconds(180);

	final Variant variant;

	final int port;

	/** The servlet filters the service reported. */
	final List<String> filters;

	private final Process process;

	private final ProcessRegistry processes;

	private AppProcess(Variant variant, Process process, ProcessRegistry processes, int port, List<String> filters) {
		this.variant = variant;
		this.process = process;
		this.processes = processes;
		this.port = port;
		this.filters = filters;
	}

	/**
	 * Starts the service for {@code variant} and waits until it is ready, with its output
	 * in {@code log}.
	 */
	static AppProcess start(Variant variant, Path jar, List<String> jvmFlags, Path log, ProcessRegistry processes)
			throws IOException, InterruptedException {
		List<String> command = new ArrayList<>();
		command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
		command.addAll(jvmFlags);
		command.add("-jar");
		command.add(jar.toString());
		command.addAll(variant.arguments);
		Process process = processes
			.start(new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()));
		long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
		try {
			while (true) {
				Matcher ready = READY.matcher(Files.readString(log, StandardCharsets.UTF_8));
				if (ready.find()) {
					List<String> filters = Arrays.asList(ready.group(3).trim().split(","));
					variant.verify(Long.parseLong(ready.group(2)), filters);
					return new AppProcess(variant, process, processes, Integer.parseInt(ready.group(1)), filters);
				}
				if (!process.isAlive() || System.nanoTime() > deadline) {
					throw new IllegalStateException("the service (" + variant.id + ") "
							+ (process.isAlive() ? "did not start within " + START_TIMEOUT : "ended")
							+ "; its output:\n" + tail(log));
				}
				Thread.sleep(100);
			}
		}
		catch (IOException | InterruptedException | RuntimeException ex) {
			ProcessRegistry.end(process);
			processes.forget(process);
			throw ex;
		}
	}

	long pid() {
		return this.process.pid();
	}

	void pause() {
		Signals.send(pid(), "STOP");
	}

	void resume() {
		Signals.send(pid(), "CONT");
	}

	/**
	 * CPU time so far of each of the process's threads, in nanoseconds, by thread id: the
	 * first field of {@code /proc/<pid>/task/<tid>/schedstat}. Read per thread, so that a
	 * thread that ends during a measurement (an idle Tomcat worker, a compiler thread)
	 * takes only its own time in that measurement with it, not its whole past.
	 */
	Map<Long, Long> cpuByThread() throws IOException {
		Map<Long, Long> cpu = new HashMap<>();
		try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Paths.get("/proc", Long.toString(pid()), "task"))) {
			for (Path task : tasks) {
				try {
					String schedstat = Files.readString(task.resolve("schedstat"));
					cpu.put(Long.parseLong(task.getFileName().toString()),
							Long.parseLong(schedstat.substring(0, schedstat.indexOf(' '))));
				}
				catch (NoSuchFileException ex) {
					// The thread ended while the directory was read.
				}
			}
		}
		return cpu;
	}

	/**
	 * CPU time so far of the JIT's compiler threads (named {@code C1 CompilerThread<n>}
	 * and {@code C2 CompilerThread<n>}, shortened by the kernel to 15 characters).
	 */
	long compilerCpuNanos() throws IOException {
		long sum = 0;
		try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Paths.get("/proc", Long.toString(pid()), "task"))) {
			for (Path task : tasks) {
				try {
					String name = Files.readString(task.resolve("comm"));
					if (name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre")) {
						String schedstat = Files.readString(task.resolve("schedstat"));
						sum += Long.parseLong(schedstat.substring(0, schedstat.indexOf(' ')));
					}
				}
				catch (NoSuchFileException ex) {
					// The thread ended while the directory was read.
				}
			}
		}
		return sum;
	}

	/**
	 * CPU time the process's threads used between two readings of {@link #cpuByThread}.
	 */
	static long cpuBetween(Map<Long, Long> before, Map<Long, Long> after) {
		long sum = 0;
		for (Map.Entry<Long, Long> thread : after.entrySet()) {
			sum += thread.getValue() - before.getOrDefault(thread.getKey(), 0L);
		}
		return sum;
	}

	@Override
	public void close() {
		if (this.process.isAlive()) {
			try {
				resume();
			}
			catch (RuntimeException ex) {
				// It ended meanwhile.
			}
			ProcessRegistry.end(this.process);
		}
		this.processes.forget(this.process);
	}

	private static String tail(Path log) throws IOException {
		List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
		return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
	}

}
