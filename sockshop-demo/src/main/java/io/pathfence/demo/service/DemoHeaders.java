package io.pathfence.demo.service;

/**
 * The header that carries a request's execution path from the load generator through
 * every service it reaches, so that each service can count its requests per path. The
 * services' behaviour never depends on it; PathFence classifies by routes.
 */
public final class DemoHeaders {

	/** The execution path a request belongs to. */
	public static final String PATH = "X-Demo-Path";

	/** What a request without the header is counted as. */
	public static final String UNLABELLED = "unlabelled";

	private DemoHeaders() {
	}

}
