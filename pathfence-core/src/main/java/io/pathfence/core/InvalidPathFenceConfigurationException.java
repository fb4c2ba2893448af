package io.pathfence.core;

/**
 * A PathFence setting that cannot work. Carries the property (or annotation) at fault,
 * the value found and what is allowed, so that startup fails with a message that says how
 * to fix it. It lives beside the fence so that whatever reads PathFence settings (the
 * Spring Boot auto-configuration, the inbound filter, the executor, or an application of
 * its own) reports them the same way.
 */
public class InvalidPathFenceConfigurationException extends RuntimeException {

	private final String property;

	private final transient Object value;

	private final String allowed;

	public InvalidPathFenceConfigurationException(String property, Object value, String allowed) {
		this(property, value, allowed, null);
	}

	public InvalidPathFenceConfigurationException(String property, Object value, String allowed, Throwable cause) {
		super("Invalid value '" + value + "' for " + property + ": expected " + allowed, cause);
		this.property = property;
		this.value = value;
		this.allowed = allowed;
	}

	public String getProperty() {
		return this.property;
	}

	public Object getValue() {
		return this.value;
	}

	public String getAllowed() {
		return this.allowed;
	}

}
