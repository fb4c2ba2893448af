package io.pathfence.demo.run;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.pathfence.demo.service.Role;

/**
 * The shop's seven services, each its own JVM on loopback, started from the demo's jar
 * with its role. Closing the cluster (or the runner's JVM exiting, through a shutdown
 * hook) continues any stopped service and kills them all: no process is left behind, and
 * never a stopped one.
 */
final class Cluster implements AutoCloseable {

	private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

	private final Map<Role, Integer> ports = new EnumMap<>(Role.class);

	private final Map<Role, Process> processes = new EnumMap<>(Role.class);

	private final Thread shutdownHook = new Thread(this::stopAll, "sockshop-cluster-stop");

	private final Path logs;

	/** Envoy with the filter in front of orders, in the envoy mode; otherwise null. */
	private EnvoySidecar sidecar;

	private Cluster(Path logs) {
		this.logs = logs;
	}

	/**
	 * Starts every service and waits until each answers its health check.
	 * @param occupancyFiles where the front-end and orders write their occupancy samples
	 */
	static Cluster start(Settings settings, Mode mode, Path logs, Map<Role, Path> occupancyFiles)
			throws IOException, InterruptedException {
		Files.createDirectories(logs);
		Cluster cluster = new Cluster(logs);
		Runtime.getRuntime().addShutdownHook(cluster.shutdownHook);
		try {
			for (Role role : Role.values()) {
				cluster.ports.put(role, freePort());
			}
			if (mode.behindEnvoy()) {
				cluster.sidecar = EnvoySidecar.start(freePort(), freePort(), cluster.ports.get(Role.ORDERS), logs);
			}
			for (Role role : Role.values()) {
				cluster.launch(settings, mode, role, occupancyFiles.get(role));
			}
			cluster.awaitHealthy();
			return cluster;
		}
		catch (IOException | InterruptedException | RuntimeException ex) {
			cluster.close();
			throw ex;
		}
	}

	private void launch(Settings settings, Mode mode, Role role, Path occupancyFile) throws IOException {
		List<String> command = new ArrayList<>();
		command.add(ProcessHandle.current().info().command().orElse("java"));
		command.addAll(settings.serviceJvmOptions());
		Path archive = classDataArchive(settings.jar());
		if (archive != null) {
			command.add("-XX:SharedArchiveFile=" + archive.toAbsolutePath());
			command.add("-Xlog:cds=off");
			command.add("-Xlog:cds+dynamic=off");
		}
		command.add("-jar");
		command.add(settings.jar().toAbsolutePath().toString());
		command.add("--role=" + role.id());
		command.add("--server.port=" + this.ports.get(role));
		for (Role downstream : Role.values()) {
			// In the envoy mode every caller of orders goes through its sidecar.
			String url = (this.sidecar != null && downstream == Role.ORDERS) ? this.sidecar.baseUrl()
					: baseUrl(downstream);
			command.add("--downstream." + downstream.id() + "=" + url);
		}
		if (occupancyFile != null) {
			command.add("--demo.occupancy-file=" + occupancyFile.toAbsolutePath());
		}
		command.addAll(mode.serviceArguments());
		Path log = this.logs.resolve(role.id() + ".log");
		Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
		this.processes.put(role, process);
	}

	/**
	 * The class-data archive the build recorded next to the jar ({@code NAME.jsa}), if
	 * there is one.
	 */
	private static Path classDataArchive(Path jar) {
		String name = jar.getFileName().toString();
		Path archive = jar.resolveSibling(name.substring(0, name.length() - ".jar".length()) + ".jsa");
		return Files.isRegularFile(archive) ? archive : null;
	}

	private void awaitHealthy() throws InterruptedException, IOException {
		HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
		long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
		for (Role role : Role.values()) {
			URI health = URI.create(baseUrl(role) + "/actuator/health");
			while (true) {
				Process process = this.processes.get(role);
				if (!process.isAlive()) {
					throw new IllegalStateException(role.id() + " exited with " + process.exitValue() + "; see "
							+ this.logs.resolve(role.id() + ".log"));
				}
				try {
					HttpResponse<Void> response = client.send(
							HttpRequest.newBuilder(health).timeout(Duration.ofSeconds(2)).build(),
							HttpResponse.BodyHandlers.discarding());
					if (response.statusCode() == 200) {
						break;
					}
				}
				catch (IOException ex) {
					// Not listening yet.
				}
				if (System.nanoTime() > deadline) {
					throw new IllegalStateException(role.id() + " did not start within " + START_TIMEOUT + "; see "
							+ this.logs.resolve(role.id() + ".log"));
				}
				Thread.sleep(200);
			}
		}
	}

	String baseUrl(Role role) {
		return "http://127.0.0.1:" + this.ports.get(role);
	}

	long pid(Role role) {
		return this.processes.get(role).pid();
	}

	/**
	 * Stalls a service by stopping its process (SIGSTOP: its sockets stay open, but
	 * nothing it owns runs) and continuing it (SIGCONT) once the stall's time is up.
	 */
	StallSwitch stallSwitch(Role role) {
		return (lengthNanos) -> {
			long until = System.nanoTime() + lengthNanos;
			signal("-STOP", pid(role));
			try {
				Millibottlenecks.sleepUntil(until);
			}
			finally {
				signal("-CONT", pid(role));
			}
		};
	}

	private static void signal(String signal, long pid) throws IOException, InterruptedException {
		Process kill = new ProcessBuilder("kill", signal, Long.toString(pid)).inheritIO().start();
		if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
			throw new IOException("kill " + signal + " " + pid + " failed");
		}
	}

	@Override
	public void close() {
		stopAll();
		try {
			Runtime.getRuntime().removeShutdownHook(this.shutdownHook);
		}
		catch (IllegalStateException ex) {
			// Already shutting down: the hook is running or has run.
		}
	}

	private synchronized void stopAll() {
		if (this.sidecar != null) {
			this.sidecar.close();
			this.sidecar = null;
		}
		for (Process process : this.processes.values()) {
			if (process.isAlive()) {
				try {
					signal("-CONT", process.pid());
				}
				catch (IOException ex) {
					// It may have exited in between; it is destroyed below either way.
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				process.destroy();
			}
		}
		for (Process process : this.processes.values()) {
			try {
				if (!process.waitFor(10, TimeUnit.SECONDS)) {
					process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
				}
			}
			catch (InterruptedException ex) {
				process.destroyForcibly();
				Thread.currentThread().interrupt();
			}
		}
		this.processes.clear();
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

}
