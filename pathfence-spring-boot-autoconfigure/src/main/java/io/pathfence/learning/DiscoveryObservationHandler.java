package io.pathfence.learning;

import java.net.URI;

import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationView;
import io.micrometer.observation.transport.RequestReplySenderContext;
import jakarta.servlet.http.HttpServletRequest;

import org.springframework.http.client.ClientHttpRequest;
import org.springframework.http.server.observation.ServerRequestObservationContext;

import io.pathfence.web.PathFenceFilter;

/**
 * Learns which downstreams each route calls from the observations Spring already makes:
 * an outbound client observation ({@code http.client.requests}) whose chain of parents
 * reaches an inbound server observation ({@code http.server.requests}) is a call the
 * server request made, wherever it ran, as long as the observation reached that thread
 * (the request's own, or a task's the context was propagated to). When the server
 * observation stops, its route pattern and method, with the downstreams called, go to
 * {@link LearnedPaths}.
 * <p>
 * A downstream is named by the client observation's remote service name when the client
 * sets one, else by the host and port it called.
 */
public class DiscoveryObservationHandler implements ObservationHandler<Observation.Context> {

	private static final String URL_KEY = "http.url";

	private static final String CLIENT_NAME_KEY = "client.name";

	private final LearnedPaths learned;

	public DiscoveryObservationHandler(LearnedPaths learned) {
		this.learned = learned;
	}

	@Override
	public boolean supportsContext(Observation.Context context) {
		return context instanceof ServerRequestObservationContext || context instanceof RequestReplySenderContext;
	}

	@Override
	public void onStart(Observation.Context context) {
		if (context instanceof ServerRequestObservationContext) {
			context.put(LearnedPaths.Calls.class, new LearnedPaths.Calls(this.learned.maxDownstreamsPerRequest()));
		}
	}

	@Override
	public void onStop(Observation.Context context) {
		if (context instanceof ServerRequestObservationContext server) {
			served(server);
		}
		else if (context instanceof RequestReplySenderContext<?, ?> client) {
			LearnedPaths.Calls calls = callsOfServerRequest(client);
			String downstream = (calls != null) ? downstream(client) : null;
			if (downstream != null) {
				calls.add(downstream);
			}
		}
	}

	private void served(ServerRequestObservationContext server) {
		LearnedPaths.Calls calls = server.get(LearnedPaths.Calls.class);
		HttpServletRequest request = server.getCarrier();
		String pattern = server.getPathPattern();
		if (calls == null || request == null || pattern == null || pattern.isBlank() || unobserved(request)) {
			return;
		}
		this.learned.served(request.getMethod(), pattern, calls.snapshot());
	}

	/**
	 * Whether the request's calls could not be seen: the fence turned it away before its
	 * handler ran, or it waited for its permit and ran on a later dispatch, outside the
	 * inbound observation's scope. Counting it would teach that its route calls nothing.
	 */
	private static boolean unobserved(HttpServletRequest request) {
		return request.getAttribute(PathFenceFilter.REJECTED_ATTRIBUTE) != null
				|| request.getAttribute(PathFenceFilter.PARKED_ATTRIBUTE) != null;
	}

	private static LearnedPaths.Calls callsOfServerRequest(Observation.ContextView client) {
		ObservationView parent = client.getParentObservation();
		while (parent != null) {
			Observation.ContextView context = parent.getContextView();
			if (context instanceof ServerRequestObservationContext) {
				return context.get(LearnedPaths.Calls.class);
			}
			parent = context.getParentObservation();
		}
		return null;
	}

	private static String downstream(RequestReplySenderContext<?, ?> client) {
		String name = client.getRemoteServiceName();
		if (name != null && !name.isBlank()) {
			return name;
		}
		if (client.getCarrier() instanceof ClientHttpRequest request) {
			return hostAndPort(request.getURI());
		}
		KeyValue url = client.getHighCardinalityKeyValue(URL_KEY);
		if (url != null) {
			try {
				return hostAndPort(URI.create(url.getValue()));
			}
			catch (IllegalArgumentException ex) {
				// Not a URI after all: fall back to the client's name.
			}
		}
		KeyValue clientName = client.getLowCardinalityKeyValue(CLIENT_NAME_KEY);
		return (clientName != null && !"none".equals(clientName.getValue())) ? clientName.getValue() : null;
	}

	private static String hostAndPort(URI uri) {
		if (uri.getHost() == null) {
			return null;
		}
		int port = uri.getPort();
		if (port < 0) {
			port = "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
		}
		return uri.getHost() + ":" + port;
	}

}
