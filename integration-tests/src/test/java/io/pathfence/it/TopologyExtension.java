package io.pathfence.it;

import io.pathfence.testcontainers.DockerTestSupport;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives a test the shared {@link Topology}, started on first use and stopped when the
 * whole run ends. Without Docker each test fails under {@code CI=true} and is skipped
 * with the reason otherwise (checked before each test, where an aborted assumption counts
 * as a skipped test rather than failing a parameter's resolution). The start is tried
 * once per run: when it fails, every later test fails at once with the first attempt's
 * cause instead of waiting minutes for a start that fails again.
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
			.computeIfAbsent(StartAttempt.class, (key) -> StartAttempt.make(), StartAttempt.class)
			.topology();
	}

	/**
	 * The run's one attempt to start the topology: the running topology, or why it did
	 * not start.
	 */
	private record StartAttempt(Topology started, RuntimeException failure) implements AutoCloseable {

		static StartAttempt make() {
			try {
				return new StartAttempt(new Topology().start(), null);
			}
			catch (RuntimeException ex) {
				return new StartAttempt(null, ex);
			}
		}

		Topology topology() {
			if (this.failure != null) {
				throw new IllegalStateException("the shared topology did not start earlier in this run", this.failure);
			}
			return this.started;
		}

		/**
		 * Called by JUnit when the run ends (the root store closes its AutoCloseable
		 * values).
		 */
		@Override
		public void close() {
			if (this.started != null) {
				this.started.close();
			}
		}

	}

}
