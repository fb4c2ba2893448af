package io.pathfence.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Traces shaped like DeathStarBench's SocialNetwork, seen from its front end
 * ({@code nginx-web-server}), generated from the small topology description
 * {@link #TOPOLOGY}.
 * <p>
 * A request line reads {@code METHOD route path start-end xN} (times in milliseconds,
 * repeated N times); each line indented below it is a call from the service above to the
 * named one, from start to end; {@code ~name} is a span of the calling service's own (an
 * asynchronous task) whose children it calls from. A call becomes the caller's client
 * span and the callee's server span, a quarter of a millisecond inside it.
 */
final class SocialNetwork {

	static final String FRONT_END = "nginx-web-server";

	static final String TOPOLOGY = """
			POST /wrk2-api/post/compose /wrk2-api/post/compose 0-100 x2
			  text 2-40
			    url-shorten 5-15
			    user-mention 6-30
			  user 2-10
			  media 3-20
			  unique-id 3-5
			  compose-post 42-95
			    post-storage 45-60
			    user-timeline 46-58
			    home-timeline 47-90
			      social-graph 50-80
			POST /wrk2-api/post/compose /wrk2-api/post/compose 0-100 x1
			  text 2-40
			    url-shorten 5-15
			    user-mention 6-30
			  user 2-10
			  media 3-60
			  unique-id 3-5
			  compose-post 42-95
			    post-storage 45-60
			    user-timeline 46-58
			    home-timeline 47-90
			      social-graph 50-80
			GET /wrk2-api/home-timeline/read /wrk2-api/home-timeline/read 0-20 x2
			  home-timeline 2-18
			    post-storage 4-16
			GET /wrk2-api/user-timeline/read /wrk2-api/user-timeline/read 0-20 x1
			  user-timeline 2-18
			    post-storage 5-15
			POST /wrk2-api/user/follow /wrk2-api/user/follow 0-40 x1
			  ~follow-async 1-11
			    user 2-10
			  social-graph 12-36
			POST /wrk2-api/user/unfollow /wrk2-api/user/unfollow 0-40 x1
			  user 2-10
			  social-graph 12-36
			POST /wrk2-api/user/register /wrk2-api/user/register 0-10 x1
			  user 1-9
			    social-graph 3-5
			GET /api/user/login /api/user/login 0-10 x1
			  user 1-9
			GET /wrk2-api/post/{id} /wrk2-api/post/2001 0-10 x2
			  post-storage 1-9
			GET /wrk2-api/user/{id}/followers /wrk2-api/user/17/followers 0-10 x1
			  social-graph 1-9
			GET /index.html /index.html 0-2 x1
			""";

	/**
	 * The start of the first trace, in microseconds since the epoch; each request a
	 * second later.
	 */
	static final long EPOCH_MICROS = 1_700_000_000_000_000L;

	/** How far inside its client span a callee's server span starts and ends. */
	static final long NETWORK_MICROS = 250;

	private SocialNetwork() {
	}

	/** The spans of every request of the topology. */
	static List<GenSpan> spans() {
		List<GenSpan> spans = new ArrayList<>();
		int trace = 0;
		List<String> lines = TOPOLOGY.lines().filter((l) -> !l.isBlank()).toList();
		for (int i = 0; i < lines.size(); i++) {
			if (lines.get(i).startsWith(" ")) {
				continue;
			}
			String[] head = lines.get(i).trim().split(" ");
			Call root = new Call(FRONT_END, false, range(head[3])[0], range(head[3])[1]);
			int next = children(lines, i + 1, 1, root);
			int repeat = Integer.parseInt(head[4].substring(1));
			for (int r = 0; r < repeat; r++) {
				trace++;
				Generator g = new Generator(String.format(Locale.ROOT, "%032x", 0x5ca1ab1e00000000L + trace),
						EPOCH_MICROS + trace * 1_000_000L, head[0], head[1], head[2], spans);
				g.server(root, null);
			}
			i = next - 1;
		}
		return spans;
	}

	private static int children(List<String> lines, int from, int depth, Call parent) {
		int i = from;
		while (i < lines.size()) {
			String line = lines.get(i);
			int indent = line.length() - line.stripLeading().length();
			if (indent < depth * 2) {
				return i;
			}
			String[] parts = line.trim().split(" ");
			boolean internal = parts[0].startsWith("~");
			long[] times = range(parts[1]);
			Call call = new Call(internal ? parts[0].substring(1) : parts[0], internal, times[0], times[1]);
			parent.children.add(call);
			i = children(lines, i + 1, depth + 1, call);
		}
		return i;
	}

	private static long[] range(String text) {
		String[] ends = text.split("-");
		return new long[] { Long.parseLong(ends[0]) * 1000, Long.parseLong(ends[1]) * 1000 };
	}

	/**
	 * A call (or a task) of the topology, times in microseconds from the request's start.
	 */
	static final class Call {

		final String name;

		final boolean internal;

		final long start;

		final long end;

		final List<Call> children = new ArrayList<>();

		Call(String name, boolean internal, long start, long end) {
			this.name = name;
			this.internal = internal;
			this.start = start;
			this.end = end;
		}

	}

	/**
	 * One generated span, in terms every format can write.
	 *
	 * @param kind SERVER, CLIENT or INTERNAL
	 * @param method the HTTP method of the request it serves or makes
	 * @param route the server's route pattern, for the formats that record it
	 * @param path the request path
	 * @param callee for a client span, the service it calls
	 */
	record GenSpan(String traceId, String spanId, String parentId, String kind, String service, String name,
			long startMicros, long durationMicros, String method, String route, String path, String callee) {
	}

	private static final class Generator {

		private final String traceId;

		private final long base;

		private final String method;

		private final String route;

		private final String path;

		private final List<GenSpan> out;

		private int ids;

		Generator(String traceId, long base, String method, String route, String path, List<GenSpan> out) {
			this.traceId = traceId;
			this.base = base;
			this.method = method;
			this.route = route;
			this.path = path;
			this.out = out;
		}

		private String id() {
			return String.format(Locale.ROOT, "%016x",
					(Long.parseLong(this.traceId.substring(24), 16) << 8) + ++this.ids);
		}

		void server(Call call, String parent) {
			boolean root = parent == null;
			long start = root ? call.start : call.start + NETWORK_MICROS;
			long end = root ? call.end : call.end - NETWORK_MICROS;
			String id = id();
			String serverRoute = root ? this.route : "/" + call.name + "/rpc";
			String serverPath = root ? this.path : serverRoute;
			String serverMethod = root ? this.method : "POST";
			this.out.add(new GenSpan(this.traceId, id, parent, "SERVER", call.name,
					serverMethod.toLowerCase(Locale.ROOT) + " " + serverRoute, this.base + start, end - start,
					serverMethod, serverRoute, serverPath, null));
			calls(call, call.name, id);
		}

		private void calls(Call call, String service, String parent) {
			for (Call child : call.children) {
				String id = id();
				if (child.internal) {
					this.out.add(new GenSpan(this.traceId, id, parent, "INTERNAL", service, child.name,
							this.base + child.start, child.end - child.start, null, null, null, null));
					calls(child, service, id);
				}
				else {
					this.out
						.add(new GenSpan(this.traceId, id, parent, "CLIENT", service, "post", this.base + child.start,
								child.end - child.start, "POST", null, "/" + child.name + "/rpc", child.name));
					server(child, id);
				}
			}
		}

	}

}
