package io.pathfence.discovery.config;

import java.util.List;

/**
 * A configuration a writer produced, and what the reader of it should know: routes left
 * out, and learned routes the configuration would not classify as learned.
 *
 * @param text the configuration
 * @param warnings one line each
 */
public record GeneratedConfig(String text, List<String> warnings) {

	public GeneratedConfig {
		warnings = List.copyOf(warnings);
	}

}
