package io.pathfence.it;

import io.pathfence.testcontainers.DockerTestSupport;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives a test the shared {@link Topology}, started on first use and stopped when the whole run ends. Without
 * Docker each test fails under {@code CI=true} and is skipped with the reason otherwise (checked before each test,
 * where an aborted assumption counts as a skipped test rather than failing a parameter's resolution).
 */
final class TopologyExtension implements BeforeEachCallback, ParameterResolver {

	private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace
		.create(TopologyExtension.class);

	@Override
	public void beforeEach(ExtensionContext context) {
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
