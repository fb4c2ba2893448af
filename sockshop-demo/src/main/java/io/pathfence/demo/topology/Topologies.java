package io.pathfence.demo.topology;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The applications the demo ships ({@code topologies/NAME.yaml} in its jar), and any
 * other topology file.
 */
public final class Topologies {

	/** The application the demo runs unless told otherwise. */
	public static final String DEFAULT = "sock-shop";

	/** The applications of the paper's evaluation, in its Table 1's order. */
	public static final List<String> BUILT_IN = List.of("sock-shop", "social-network", "media-service");

	private Topologies() {
	}

	/**
	 * A built-in application by name, or a topology file by its path.
	 * @throws InvalidTopologyException when the file is malformed, naming the field
	 * @throws IllegalArgumentException when it is neither, saying what is allowed
	 */
	public static Topology load(String nameOrFile) {
		if (BUILT_IN.contains(nameOrFile)) {
			String resource = "/topologies/" + nameOrFile + ".yaml";
			try (InputStream in = Topologies.class.getResourceAsStream(resource)) {
				if (in == null) {
					throw new IllegalStateException(resource + " is missing from the demo's jar");
				}
				return TopologyReader.read(new String(in.readAllBytes(), StandardCharsets.UTF_8));
			}
			catch (InvalidTopologyException ex) {
				throw ex.in(nameOrFile + ".yaml");
			}
			catch (IOException ex) {
				throw new IllegalStateException("Cannot read " + resource + ": " + ex.getMessage(), ex);
			}
		}
		Path file = Path.of(nameOrFile);
		if (!Files.isRegularFile(file)) {
			throw new IllegalArgumentException(
					"No application or topology file '" + nameOrFile + "': one of " + BUILT_IN + ", or a YAML file");
		}
		try {
			return TopologyReader.read(file);
		}
		catch (IOException ex) {
			throw new IllegalArgumentException("Cannot read the topology file " + file + ": " + ex.getMessage(), ex);
		}
	}

}
