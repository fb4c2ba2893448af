package io.pathfence.demo.whatif;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A what-if run as the user starts it, {@code java -jar sockshop-demo.jar whatif ...},
 * watched from outside: every process it starts (agents, services, {@code taskset}) is
 * recorded while it runs, with how often one was seen stopped, so that what it leaves
 * behind can be checked after it has exited.
 */
final class WhatIfProcesses implements AutoCloseable {

	private final Process process;

	private final Path output;

	private final Map<Long, ProcessHandle> seen = new ConcurrentHashMap<>();

	private final AtomicInteger seenStopped = new AtomicInteger();

	private final Thread watcher;

	private WhatIfProcesses(Process process, Path output) {
		this.process = process;
		this.output = output;
		this.watcher = Thread.ofPlatform().daemon().name("whatif-watcher").start(this::watch);
	}

	static Path agent() {
		return Path.of(System.getProperty("pathfence.pause-agent.binary", "../pause-agent/target/release/pause-agent"));
	}

	static Path jar() {
		return Path.of(System.getProperty("sockshop.jar", "target/app/sockshop-demo.jar"));
	}

	/**
	 * Starts the run as a terminal would: in a process group of its own (whose id is its
	 * pid, for a Ctrl-C to the group), with SIGINT and SIGQUIT at their defaults, which a
	 * build run in the background would otherwise pass on ignored.
	 */
	static WhatIfProcesses start(Path folder, List<String> arguments) throws IOException {
		List<String> command = new ArrayList<>(List.of("python3", "-c",
				"import os, signal, sys; os.setsid(); signal.signal(signal.SIGINT, signal.SIG_DFL); "
						+ "signal.signal(signal.SIGQUIT, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])",
				ProcessHandle.current().info().command().orElse("java"), "-Xmx256m", "-XX:+UseSerialGC",
				"-Djava.awt.headless=true", "-jar", jar().toString(), "whatif", "--pause-agent=" + agent(),
				"--results=" + folder));
		command.addAll(arguments);
		Path output = folder.resolve("whatif-output.txt");
		Files.createDirectories(folder);
		Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
		return new WhatIfProcesses(process, output);
	}

	private void watch() {
		while (this.process.isAlive()) {
			this.process.descendants().forEach((handle) -> {
				this.seen.putIfAbsent(handle.pid(), handle);
				if (stopped(handle.pid())) {
					this.seenStopped.incrementAndGet();
				}
			});
			try {
				Thread.sleep(20);
			}
			catch (InterruptedException ex) {
				return;
			}
		}
	}

	/** Waits for a line of output that contains {@code text}. */
	boolean awaitOutput(String text, Duration timeout) throws IOException, InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (System.nanoTime() < deadline) {
			if (output().contains(text)) {
				return true;
			}
			if (!this.process.isAlive()) {
				return output().contains(text);
			}
			Thread.sleep(100);
		}
		return false;
	}

	/** Waits until one of its processes has been seen stopped: a pause under way. */
	boolean awaitAPause(Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		int before = this.seenStopped.get();
		while (System.nanoTime() < deadline && this.process.isAlive()) {
			if (this.seenStopped.get() > before) {
				return true;
			}
			Thread.sleep(5);
		}
		return false;
	}

	int exitCode(Duration timeout) throws InterruptedException {
		if (!this.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
			throw new AssertionError("the what-if run did not exit within " + timeout);
		}
		this.watcher.join();
		return this.process.exitValue();
	}

	Process process() {
		return this.process;
	}

	String output() throws IOException {
		return Files.readString(this.output);
	}

	/** The lines it wrote on its standard error and output that are not progress. */
	List<String> linesStartingWith(String prefix) throws IOException {
		return output().lines().filter((line) -> line.startsWith(prefix)).toList();
	}

	/** How many processes it started, agents and services included. */
	int processesSeen() {
		return this.seen.size();
	}

	/**
	 * Every process it started that is still there some seconds after it exited, with its
	 * state: none should be.
	 */
	List<String> leftBehind(Duration grace) throws InterruptedException {
		long deadline = System.nanoTime() + grace.toNanos();
		List<String> left = new ArrayList<>();
		for (ProcessHandle handle : this.seen.values()) {
			while (handle.isAlive() && System.nanoTime() < deadline) {
				Thread.sleep(50);
			}
			if (handle.isAlive()) {
				left.add(handle.pid() + " (" + state(handle.pid()).orElse("?") + ") "
						+ handle.info().commandLine().orElse(""));
			}
		}
		return left;
	}

	private static boolean stopped(long pid) {
		return state(pid).filter((state) -> state.equals("T") || state.equals("t")).isPresent();
	}

	/** The process's state letter from {@code /proc/PID/stat}. */
	static Optional<String> state(long pid) {
		try {
			String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
			return Optional.of(stat.substring(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3));
		}
		catch (IOException | RuntimeException ex) {
			return Optional.empty();
		}
	}

	@Override
	public void close() throws InterruptedException {
		if (this.process.isAlive()) {
			this.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
		}
		// Should a test fail half-way, nothing it started may stay behind either.
		for (ProcessHandle handle : this.seen.values()) {
			if (handle.isAlive()) {
				try {
					new ProcessBuilder("kill", "-CONT", Long.toString(handle.pid())).start().waitFor();
				}
				catch (IOException ex) {
					// Gone meanwhile.
				}
				handle.destroyForcibly();
			}
		}
		this.watcher.interrupt();
	}

}
