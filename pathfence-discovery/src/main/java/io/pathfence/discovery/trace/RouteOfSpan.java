package io.pathfence.discovery.trace;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.pathfence.discovery.Route;

/**
 * The route of a server span, from the tags instrumentations write.
 * <ol>
 * <li>The method: {@code http.request.method} (OpenTelemetry), {@code http.method}
 * (Zipkin, older OpenTelemetry), {@code method} (Micrometer).</li>
 * <li>The route: {@code http.route}, or Micrometer's {@code uri} when it is a
 * pattern.</li>
 * <li>Else the request path, with identifiers made variables ({@link PathNormalizer}):
 * {@code url.path}, {@code http.path}, {@code http.target}, then the path of
 * {@code http.url} or {@code url.full}.</li>
 * <li>Else a span name such as {@code GET /orders/{id}} or {@code http get
 * /orders/{id}}.</li>
 * <li>Else the span name as an operation (a request that is not HTTP).</li>
 * </ol>
 */
public final class RouteOfSpan {

	private static final Pattern METHOD = Pattern.compile("[A-Z]+");

	private static final Pattern NAME = Pattern
		.compile("(?i)(?:http\\s+)?(GET|HEAD|POST|PUT|DELETE|PATCH|OPTIONS|TRACE|CONNECT)\\s+(/\\S*)");

	private RouteOfSpan() {
	}

	public static Route of(Span span) {
		String method = method(span.tag("http.request.method", "http.method", "method"));
		String route = span.tag("http.route");
		if (route == null) {
			String uri = span.tag("uri");
			route = (uri != null && uri.startsWith("/")) ? uri : null;
		}
		if (route != null) {
			return new Route(method, PathNormalizer.stripQuery(route.trim()));
		}
		String path = span.tag("url.path", "http.path", "http.target");
		if (path == null) {
			path = pathOf(span.tag("http.url", "url.full"));
		}
		if (path != null && path.startsWith("/")) {
			return new Route(method, PathNormalizer.normalize(path.trim()));
		}
		Matcher name = NAME.matcher(span.name().trim());
		if (name.matches()) {
			String fromName = name.group(1).toUpperCase(Locale.ROOT);
			return new Route(method.isEmpty() ? fromName : method, PathNormalizer.normalize(name.group(2)));
		}
		return new Route(method, span.name().isBlank() ? "(unnamed)" : span.name().trim());
	}

	private static String method(String tag) {
		if (tag == null) {
			return "";
		}
		String method = tag.trim().toUpperCase(Locale.ROOT);
		// OpenTelemetry writes _OTHER for a method it does not know.
		return METHOD.matcher(method).matches() ? method : "";
	}

	private static String pathOf(String url) {
		if (url == null) {
			return null;
		}
		if (url.startsWith("/")) {
			return url;
		}
		try {
			String path = new URI(url.trim()).getRawPath();
			return (path == null || path.isEmpty()) ? "/" : path;
		}
		catch (URISyntaxException ex) {
			return null;
		}
	}

}
