package io.pathfence.testcontainers;

import java.nio.file.Files;
import java.nio.file.Path;

import org.testcontainers.images.builder.ImageFromDockerfile;

/**
 * An Envoy image built from an Envoy binary on this machine, for CI where no registry is
 * reachable: the binary is copied to {@value PathFenceContainer#ENVOY_BINARY} of a base
 * image that has glibc (a Debian or Ubuntu image; the official Envoy build is dynamically
 * linked against glibc only), keeping its file mode. The image is kept after the run, so
 * Docker's build cache makes the next build of the same binary nearly free.
 */
public final class LocalEnvoyImage extends ImageFromDockerfile {

	/**
	 * @param imageName the tag of the built image, for example
	 * {@code pathfence/envoy-local:1.40}
	 * @param baseImage the image to start FROM, already present in the Docker engine
	 * @param envoyBinary the Envoy executable to copy in
	 */
	public LocalEnvoyImage(String imageName, String baseImage, Path envoyBinary) {
		super(imageName, false);
		if (!Files.isRegularFile(envoyBinary)) {
			throw new IllegalArgumentException("no Envoy binary at " + envoyBinary);
		}
		withFileFromPath("envoy", envoyBinary);
		withDockerfileFromBuilder(
				(dockerfile) -> dockerfile.from(baseImage).copy("envoy", PathFenceContainer.ENVOY_BINARY).build());
	}

}
