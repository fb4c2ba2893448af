package io.pathfence.it;

import io.pathfence.testcontainers.DockerTestSupport;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives a test the shared {@link Topology}, started on first use and stopped when the whole run ends. Without
 * Docker the test class fails under {@code CI=true} and is skipped with the reason otherwise (checked before all
 * its tests, where an aborted assumption skips the class rather than failing a parameter's resolution).
 */
final class TopologyExtension implements BeforeAllCallback, ParameterResolver {

	private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace
		.create(TopologyExtension.class);

	@Override
	public void beforeAll(ExtensionContext context) {
		DockerTestSupport.requireDocker();
	}

	@Override
	public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
		return parameter.getParameter().getType() == Topology.class;
	}

	@Override
	public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
		return context.getRoot()
			.getStore(NAMESPACE)
			.computeIfAbsent(Topology.class, (key) -> new Topology().start(), Topology.class);
	}

}
