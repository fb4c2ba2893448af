package io.pathfence.web;

import java.util.Set;

import org.springframework.http.server.PathContainer;
import org.springframework.web.util.pattern.PathPattern;

/**
 * A configured route of a path: a request path pattern, optionally narrowed to some HTTP
 * methods.
 *
 * @param path the execution path the route belongs to
 * @param pattern the parsed request path pattern
 * @param methods the HTTP methods it matches; empty for all
 * @param literal the pattern's literal form, or {@code null} when it has wildcards or
 * variables
 */
record Route(String path, PathPattern pattern, Set<String> methods, LiteralPattern literal) {

	Route(String path, PathPattern pattern, Set<String> methods) {
		this(path, pattern, methods, LiteralPattern.of(pattern));
	}

	boolean matchesMethod(String method) {
		return this.methods.isEmpty() || this.methods.contains(method);
	}

	boolean matches(String method, PathContainer requestPath) {
		return matchesMethod(method) && this.pattern.matches(requestPath);
	}

}
