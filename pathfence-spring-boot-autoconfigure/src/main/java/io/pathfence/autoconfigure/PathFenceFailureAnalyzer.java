package io.pathfence.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

import io.pathfence.core.InvalidPathFenceConfigurationException;

/**
 * Turns an invalid PathFence setting into a startup report that names the property, the
 * value and what is allowed.
 * <p>
 * Boot reports a failure with the first analyzer that recognises anything in its causes,
 * and its own analyzers are unordered, so without an order the winner would depend on the
 * order of the jars on the classpath. Ours goes first: a cause our exception carries (a
 * {@code PatternParseException} from a malformed route) is a detail of the property at
 * fault, and Boot's analyzer of that cause would report it without naming the property.
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
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
