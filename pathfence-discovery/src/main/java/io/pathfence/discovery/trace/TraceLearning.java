package io.pathfence.discovery.trace;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

import io.pathfence.discovery.LearnedRoute;
import io.pathfence.discovery.Route;
import io.pathfence.discovery.RouteLearner;

/**
 * What traces tell of one service: its routes and the downstream services each calls.
 * <p>
 * A request of the service is a server span it recorded whose parent is not its own (the
 * caller's client span, another service's span, or none). Its route comes from the span's
 * tags ({@link RouteOfSpan}). Its downstream calls are found below it, through the
 * service's own internal spans (an {@code @Async} task, a nested server span of a second
 * instrumentation): each outbound span the service recorded is one call to its callee
 * ({@link Callee}), and a span another service recorded directly below one of the
 * service's own (no client span in between) is one call to that service.
 */
public final class TraceLearning {

	private final String service;

	private final List<LearnedRoute> routes;

	private final Map<Route, List<Request>> requests;

	private final SortedSet<String> services;

	private TraceLearning(String service, List<LearnedRoute> routes, Map<Route, List<Request>> requests,
			SortedSet<String> services) {
		this.service = service;
		this.routes = routes;
		this.requests = requests;
		this.services = services;
	}

	/** Learns {@code service}'s routes from {@code traces}. */
	public static TraceLearning of(String service, List<TraceTree> traces) {
		RouteLearner learner = new RouteLearner();
		Map<Route, List<Request>> requests = new TreeMap<>();
		SortedSet<String> services = new TreeSet<>();
		for (TraceTree tree : traces) {
			for (Span span : tree.spans()) {
				services.add(span.service());
				if (isRequest(span, service, tree)) {
					Route route = RouteOfSpan.of(span);
					learner.served(route);
					calls(span, tree, (downstream) -> learner.called(route, downstream));
					requests.computeIfAbsent(route, (r) -> new ArrayList<>()).add(new Request(tree, span));
				}
			}
		}
		return new TraceLearning(service, learner.routes(), Collections.unmodifiableMap(requests),
				Collections.unmodifiableSortedSet(services));
	}

	public String service() {
		return this.service;
	}

	/** The service's routes with their downstream calls, sorted by route. */
	public List<LearnedRoute> routes() {
		return this.routes;
	}

	/** The requests of each route, for their critical paths. */
	public Map<Route, List<Request>> requests() {
		return this.requests;
	}

	/** Every service that recorded a span in the traces. */
	public SortedSet<String> services() {
		return this.services;
	}

	static boolean isRequest(Span span, String service, TraceTree tree) {
		if (span.kind() != SpanKind.SERVER || !span.service().equals(service)) {
			return false;
		}
		Span parent = tree.parent(span);
		return parent == null || !parent.service().equals(service) || parent.kind().isOutbound();
	}

	/**
	 * The downstream a child of one of the service's own spans stands for, or null when
	 * the child is the service's own work.
	 */
	static String downstreamOf(Span child, String service, TraceTree tree) {
		if (!child.service().equals(service)) {
			return child.service();
		}
		if (child.kind().isOutbound()) {
			return Callee.of(child, tree);
		}
		return null;
	}

	private static void calls(Span span, TraceTree tree, java.util.function.Consumer<String> call) {
		for (Span child : tree.children(span)) {
			String downstream = downstreamOf(child, span.service(), tree);
			if (downstream != null) {
				call.accept(downstream);
			}
			else {
				calls(child, tree, call);
			}
		}
	}

	/**
	 * One request of the service.
	 *
	 * @param tree its trace
	 * @param server the service's server span for it
	 */
	public record Request(TraceTree tree, Span server) {
	}

}
