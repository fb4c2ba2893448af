package io.pathfence.testcontainers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.stream.Stream;

import com.github.dockerjava.api.exception.NotFoundException;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.testcontainers.DockerClientFactory;

/**
 * What the container tests need from the machine: a Docker engine, the locally built base
 * image (made by {@code scripts/docker.sh}, since no image can be pulled) and Envoy from
 * the project's venv. When one is missing the tests fail under {@code CI=true} and are
 * skipped with the reason otherwise. Shared with the {@code integration-tests} module
 * through this module's test jar.
 */
public final class DockerTestSupport {

	/** The base image every test image starts FROM. */
	public static final String BASE_IMAGE = System.getProperty("pathfence.base.image", "pathfence/base-jre:bookworm");

	/** The tag of the Envoy image built from the venv's Envoy binary. */
	public static final String ENVOY_IMAGE = "pathfence/envoy-local:1.40";

	private static LocalEnvoyImage envoyImage;

	private DockerTestSupport() {
	}

	/**
	 * Fails (CI) or skips (elsewhere) unless Docker, the base image and Envoy are all
	 * here.
	 */
	public static void requireDocker() {
		if (!DockerClientFactory.instance().isDockerAvailable()) {
			missing("no Docker engine answers (start one with scripts/docker.sh; Testcontainers also needs "
					+ "TESTCONTAINERS_RYUK_DISABLED=true and TESTCONTAINERS_HOST_OVERRIDE=localhost here)");
		}
		try {
			DockerClientFactory.instance().client().inspectImageCmd(BASE_IMAGE).exec();
		}
		catch (NotFoundException ex) {
			missing("the base image " + BASE_IMAGE
					+ " is not built (scripts/docker.sh builds it; no image can be pulled)");
		}
		if (envoyBinary() == null) {
			missing("no Envoy binary under " + venv() + " (scripts/tools.sh installs it)");
		}
	}

	/**
	 * The venv's Envoy binary, to run on this machine; fails (CI) or skips (elsewhere)
	 * when there is none.
	 */
	static Path requireEnvoyBinary() {
		Path binary = envoyBinary();
		if (binary == null) {
			missing("no Envoy binary under " + venv() + " (scripts/tools.sh installs it)");
		}
		return binary;
	}

	private static void missing(String reason) {
		if ("true".equals(System.getenv("CI"))) {
			Assertions.fail(reason + "; CI=true, so this is a failure, not a skip");
		}
		// Printed as well: Maven's summary shows a class skipped before all its tests
		// only as "Tests run: 0".
		System.out.println("SKIPPED: " + reason);
		Assumptions.abort("Skipped: " + reason);
	}

	/** The Envoy image, built once per test JVM. */
	public static synchronized LocalEnvoyImage envoyImage() {
		if (envoyImage == null) {
			Path binary = envoyBinary();
			if (binary == null) {
				throw new IllegalStateException("no Envoy binary under " + venv());
			}
			envoyImage = new LocalEnvoyImage(ENVOY_IMAGE, BASE_IMAGE, binary);
		}
		return envoyImage;
	}

	private static Path venv() {
		return Paths.get(System.getProperty("pathfence.venv", "../.venv")).toAbsolutePath().normalize();
	}

	/**
	 * The Envoy executable itself: {@code .venv/bin/envoy} is a Python launcher that
	 * cannot run in a container, the binary it executes lives in the {@code envoy}
	 * package's {@code _bin} folder.
	 */
	static Path envoyBinary() {
		Path lib = venv().resolve("lib");
		if (!Files.isDirectory(lib)) {
			return null;
		}
		try (Stream<Path> pythons = Files.list(lib)) {
			return pythons.map((python) -> python.resolve("site-packages/envoy/_bin/envoy"))
				.filter(Files::isRegularFile)
				.findFirst()
				.orElse(null);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
