package io.pathfence.whatif.profile;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The target's cores, Slowpoke's {@code q_t}: the CPUs it is pinned to, or its pod's CPU
 * request.
 * <p>
 * The pinning is read from {@code /proc/<pid>/task/<tid>/status}
 * ({@code Cpus_allowed_list}, the mask {@code sched_getaffinity} returns, cpusets
 * included), over every thread of the process, since a thread may be pinned apart. A
 * target that may run on every online CPU is not pinned: it shares its cores with the
 * other services, and how many are its own cannot be told, so it is refused.
 */
public final class TargetCores {

	private static final Pattern CPU_REQUEST = Pattern.compile("(\\d+(\\.\\d+)?)(m?)");

	private final Path proc;

	private final Path onlineCpus;

	/**
	 * Reads the real {@code /proc} and {@code /sys}.
	 */
	public TargetCores() {
		this(Path.of("/proc"), Path.of("/sys/devices/system/cpu/online"));
	}

	TargetCores(Path proc, Path onlineCpus) {
		this.proc = proc;
		this.onlineCpus = onlineCpus;
	}

	/**
	 * The number of CPUs the process {@code pid} is pinned to.
	 * @param pid the target's process (the pause agent's child)
	 * @return how many CPUs its threads may run on
	 * @throws IllegalStateException saying why, if the process is gone, its affinity
	 * cannot be read, or it is not pinned (it may run on every online CPU)
	 */
	public int pinned(long pid) {
		BitSet allowed = affinity(pid);
		BitSet online = cpuList(read(this.onlineCpus, "the online CPUs"), this.onlineCpus.toString());
		BitSet beyond = (BitSet) online.clone();
		beyond.andNot(allowed);
		if (beyond.isEmpty()) {
			throw new IllegalStateException(
					"cannot tell the target's cores: process " + pid + " may run on every online" + " CPU ("
							+ list(allowed) + "), which it shares with the other services; pin it (taskset -c, a"
							+ " cpuset, Kubernetes' static CPU manager) or give its pod's CPU request");
		}
		return allowed.cardinality();
	}

	/**
	 * The number of CPUs {@code pid} is pinned to, which none of {@code others} may use.
	 * @param pid the target's process
	 * @param others the other services' processes, by name
	 * @return the target's cores
	 * @throws IllegalStateException as {@link #pinned}, or naming a service that may run
	 * on one of the target's CPUs
	 */
	public int pinnedAlone(long pid, Map<String, Long> others) {
		int cores = pinned(pid);
		BitSet target = affinity(pid);
		others.forEach((service, other) -> {
			BitSet shared = affinity(other);
			shared.and(target);
			if (!shared.isEmpty()) {
				throw new IllegalStateException("the target (process " + pid + ", CPUs " + list(target)
						+ ") does not have its cores to itself: " + service + " (process " + other + ") may run on "
						+ list(shared) + "; pin the other services to other CPUs");
			}
		});
		return cores;
	}

	/**
	 * The CPUs the threads of {@code pid} may run on, together.
	 * @param pid a process
	 * @return the union of its threads' affinity masks
	 * @throws IllegalStateException if the process is gone or cannot be read
	 */
	public BitSet affinity(long pid) {
		Path tasks = this.proc.resolve(Long.toString(pid)).resolve("task");
		BitSet allowed = new BitSet();
		try (DirectoryStream<Path> threads = Files.newDirectoryStream(tasks)) {
			for (Path thread : threads) {
				String status;
				try {
					status = Files.readString(thread.resolve("status"));
				}
				catch (NoSuchFileException ex) {
					continue; // the thread ended meanwhile
				}
				allowed.or(cpuList(field(status, "Cpus_allowed_list", thread), thread + "/status"));
			}
		}
		catch (NoSuchFileException ex) {
			throw new IllegalStateException("cannot tell the target's cores: there is no process " + pid, ex);
		}
		catch (IOException ex) {
			throw new IllegalStateException("cannot tell the target's cores: " + tasks + " cannot be read: " + ex, ex);
		}
		if (allowed.isEmpty()) {
			throw new IllegalStateException("cannot tell the target's cores: process " + pid + " has no thread left");
		}
		return allowed;
	}

	/**
	 * A Kubernetes CPU request as cores: {@code 500m} is 0.5, {@code 2} is 2.
	 * @param request the pod's {@code resources.requests.cpu}
	 * @return the cores it asks for
	 * @throws IllegalArgumentException if it is not a positive quantity of cores or
	 * millicores
	 */
	public static double fromCpuRequest(String request) {
		var matcher = CPU_REQUEST.matcher((request != null) ? request.strip() : "");
		if (!matcher.matches()) {
			throw new IllegalArgumentException(
					"CPU request '" + request + "' is not a quantity of cores such as 2, 1.5 or 500m (millicores)");
		}
		double cores = Double.parseDouble(matcher.group(1)) / (matcher.group(3).isEmpty() ? 1 : 1000);
		if (cores <= 0) {
			throw new IllegalArgumentException("CPU request '" + request + "' must be more than 0 cores");
		}
		return cores;
	}

	private static String field(String status, String name, Path where) {
		for (String line : status.split("\n")) {
			if (line.startsWith(name + ":")) {
				return line.substring(name.length() + 1).strip();
			}
		}
		throw new IllegalStateException("cannot tell the target's cores: " + where + " has no " + name);
	}

	private static String read(Path file, String what) {
		try {
			return Files.readString(file).strip();
		}
		catch (IOException ex) {
			throw new IllegalStateException(
					"cannot tell the target's cores: " + what + " (" + file + ") cannot be read: " + ex, ex);
		}
	}

	/** A kernel CPU list such as {@code 0-3,8,10-11}. */
	static BitSet cpuList(String text, String where) {
		BitSet cpus = new BitSet();
		for (String range : text.strip().split(",")) {
			if (range.isEmpty()) {
				continue;
			}
			try {
				int dash = range.indexOf('-');
				int first = Integer.parseInt((dash < 0) ? range : range.substring(0, dash));
				int last = (dash < 0) ? first : Integer.parseInt(range.substring(dash + 1));
				cpus.set(first, last + 1);
			}
			catch (NumberFormatException ex) {
				throw new IllegalStateException(
						"cannot tell the target's cores: '" + text + "' in " + where + " is not a CPU list", ex);
			}
		}
		return cpus;
	}

	private static String list(BitSet cpus) {
		return cpus.toString().replaceAll("[{} ]", "");
	}

}
