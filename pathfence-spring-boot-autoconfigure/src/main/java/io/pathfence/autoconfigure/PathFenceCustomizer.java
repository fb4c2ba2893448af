package io.pathfence.autoconfigure;

import io.pathfence.core.PathFence;

/**
 * Adjusts the fence the auto-configuration builds from {@code pathfence.*}, without
 * replacing it: add a path whose settings come from elsewhere, set the clock. Every bean
 * of this type is applied, in their order, after the properties and before the fence is
 * built; what they add is fenced, metered and accepted by {@code @FencedPath} like a
 * configured path. To hear the fence's events, declare a {@code PathFenceListener} bean
 * rather than setting a listener here.
 */
@FunctionalInterface
public interface PathFenceCustomizer {

	/**
	 * Adjusts the builder, which already holds what the properties describe.
	 * @param builder the fence's builder
	 */
	void customize(PathFence.Builder builder);

}
