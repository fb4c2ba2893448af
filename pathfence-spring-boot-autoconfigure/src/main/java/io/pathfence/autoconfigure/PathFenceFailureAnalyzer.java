package io.pathfence.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import io.pathfence.core.InvalidPathFenceConfigurationException;

/**
 * Turns an invalid PathFence setting into a startup report that names the property, the
 * value and what is allowed.
 */
class PathFenceFailureAnalyzer extends AbstractFailureAnalyzer<InvalidPathFenceConfigurationException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidPathFenceConfigurationException cause) {
		String description = "PathFence is misconfigured.\n\n    Property: " + cause.getProperty() + "\n    Value: "
				+ cause.getValue() + "\n    Reason: expected " + cause.getAllowed()
				+ ((cause.getCause() != null) ? " (" + cause.getCause().getMessage() + ")" : "");
		String action = "Update " + cause.getProperty() + " to " + cause.getAllowed()
				+ ", or set pathfence.enabled=false to run without PathFence.";
		return new FailureAnalysis(description, action, cause);
	}

}
