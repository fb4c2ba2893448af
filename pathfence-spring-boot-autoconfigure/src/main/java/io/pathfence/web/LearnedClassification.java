package io.pathfence.web;

/**
 * Paths learned at run time for routes no configuration names, consulted after
 * {@code @FencedPath} and the configured routes.
 */
public interface LearnedClassification {

	/**
	 * The learned path of the route with this method and pattern (the pattern of the
	 * handler mapping that serves it), or {@code null} when it has none.
	 */
	String pathOf(String method, String pattern);

	/** Whether no route has a learned path, so no request needs looking up. */
	boolean isEmpty();

}
