package io.pathfence.demo.topology;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import org.springframework.http.server.PathContainer;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;

/**
 * Reads a topology from YAML and checks it as a whole before anything starts: every field
 * known and of its kind, every call to a service that exists and answers it, no call
 * cycle, reservations that fit their pool, load that enters through the gateway's routes
 * and meets the millibottleneck. A malformed file is refused with an
 * {@link InvalidTopologyException} naming the field.
 */
public final class TopologyReader {

	private static final Set<String> METHODS = Set.of("GET", "POST", "PUT", "DELETE", "PATCH");

	private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9-]*");

	private static final Set<String> TOP = ordered("name", "description", "gateway", "services", "load",
			"millibottleneck");

	private static final Set<String> SERVICE = ordered("cpu-time", "wait-time", "work-slots", "pools", "routes",
			"fence");

	private static final Set<String> POOLS = ordered("threads", "min-spare", "max-connections", "accept-count");

	private static final Set<String> ROUTE = ordered("route", "calls");

	private static final Set<String> FENCE = ordered("pool-size", "paths", "local", "tuning");

	private static final Set<String> FENCE_PATH = ordered("permits", "routes", "methods", "max-queue", "queue-timeout");

	private static final Set<String> FENCE_LOCAL = ordered("permits", "max-queue", "queue-timeout");

	private static final Set<String> TUNING = ordered("interval", "window", "period", "max-step", "hysteresis");

	private static final Set<String> LOAD = ordered("path", "request", "rate", "bursts");

	private static final Set<String> MILLIBOTTLENECK = ordered("source", "service", "length", "period", "offset");

	private static final Duration DEFAULT_QUEUE_TIMEOUT = Duration.ofMillis(500);

	private TopologyReader() {
	}

	/**
	 * @throws InvalidTopologyException naming the field at fault, with the file's name in
	 * front
	 */
	public static Topology read(Path file) throws IOException {
		try {
			return read(Files.readString(file));
		}
		catch (InvalidTopologyException ex) {
			throw ex.in(file.toString());
		}
	}

	public static Topology read(String yaml) {
		Object loaded;
		try {
			loaded = new Yaml(new SafeConstructor(new LoaderOptions())).load(yaml);
		}
		catch (YAMLException ex) {
			throw new InvalidTopologyException("", "not YAML: " + ex.getMessage().strip().replace('\n', ' '));
		}
		Map<String, YamlNode> root = new YamlNode("", loaded).entries(TOP);
		String name = name(required(root, "name", ""));
		Map<String, Service> services = new LinkedHashMap<>();
		Map<String, YamlNode> serviceNodes = required(root, "services", "").entries();
		if (serviceNodes.isEmpty()) {
			throw required(root, "services", "").invalid("must name at least one service");
		}
		serviceNodes.forEach((serviceName, node) -> services.put(serviceName, service(serviceName, node)));
		checkCalls(services);
		YamlNode gatewayNode = required(root, "gateway", "");
		String gateway = gatewayNode.text();
		if (!services.containsKey(gateway) || services.get(gateway).isLeaf()) {
			throw gatewayNode.invalid("must be a service with routes, one of " + withRoutes(services));
		}
		List<LoadStream> load = load(required(root, "load", ""), services.get(gateway));
		Millibottleneck millibottleneck = millibottleneck(required(root, "millibottleneck", ""), services, gateway);
		Topology topology = new Topology(name, gateway, services, load, millibottleneck);
		checkMillibottleneckIsMet(topology, required(root, "millibottleneck", ""));
		return topology;
	}

	private static Service service(String name, YamlNode node) {
		if (!NAME.matcher(name).matches()) {
			throw node.invalid("a service's name is lower-case letters, digits and '-', starting with a letter");
		}
		Map<String, YamlNode> fields = node.entries(SERVICE);
		Duration cpu = required(fields, "cpu-time", node.field()).duration();
		Duration wait = required(fields, "wait-time", node.field()).duration();
		Integer slots = fields.containsKey("work-slots") ? fields.get("work-slots").wholeNumber(1) : null;
		Pools pools = fields.containsKey("pools") ? pools(fields.get("pools")) : Pools.DEFAULTS;
		List<Route> routes = new ArrayList<>();
		if (fields.containsKey("routes")) {
			Set<String> seen = new HashSet<>();
			for (YamlNode item : fields.get("routes").items()) {
				Route route = route(item);
				if (!seen.add(route.toString())) {
					throw item.invalid("the route " + route + " is given twice");
				}
				routes.add(route);
			}
			if (routes.isEmpty()) {
				throw fields.get("routes").invalid("must list at least one route; leave it out for a leaf");
			}
		}
		Fence fence = null;
		if (fields.containsKey("fence")) {
			fence = fence(fields.get("fence"), pools, routes, name);
		}
		return new Service(name, cpu, wait, slots, pools, routes, fence);
	}

	private static Pools pools(YamlNode node) {
		Map<String, YamlNode> fields = node.entries(POOLS);
		int threads = fields.containsKey("threads") ? fields.get("threads").wholeNumber(1) : Pools.DEFAULTS.threads();
		int minSpare = Math.min(threads, Pools.DEFAULTS.minSpare());
		if (fields.containsKey("min-spare")) {
			minSpare = fields.get("min-spare").wholeNumber(0);
			if (minSpare > threads) {
				throw fields.get("min-spare").invalid("must be at most threads (" + threads + "), not " + minSpare);
			}
		}
		int connections = fields.containsKey("max-connections") ? fields.get("max-connections").wholeNumber(1)
				: Pools.DEFAULTS.maxConnections();
		int accept = fields.containsKey("accept-count") ? fields.get("accept-count").wholeNumber(1)
				: Pools.DEFAULTS.acceptCount();
		return new Pools(threads, minSpare, connections, accept);
	}

	private static Route route(YamlNode node) {
		Map<String, YamlNode> fields = node.entries(ROUTE);
		YamlNode request = required(fields, "route", node.field());
		String[] parts = split(request, 2, "METHOD /path, e.g. 'GET /orders/history'");
		List<Call> calls = new ArrayList<>();
		if (fields.containsKey("calls")) {
			for (YamlNode call : fields.get("calls").items()) {
				String[] callParts = split(call, 3, "METHOD service /path, e.g. 'POST payment /paymentAuth'");
				calls.add(new Call(callParts[0], callParts[1], callParts[2]));
			}
		}
		return new Route(parts[0], parts[1], calls);
	}

	/**
	 * Splits {@code METHOD ... /path} into its words, checking the method and the path.
	 */
	private static String[] split(YamlNode node, int words, String form) {
		String[] parts = node.text().split("\\s+");
		if (parts.length != words || !METHODS.contains(parts[0]) || !parts[words - 1].startsWith("/")) {
			throw node.invalid("must read " + form + " (methods " + new java.util.TreeSet<>(METHODS) + "), not '"
					+ node.text() + "'");
		}
		return parts;
	}

	private static Fence fence(YamlNode node, Pools pools, List<Route> routes, String service) {
		Map<String, YamlNode> fields = node.entries(FENCE);
		YamlNode poolNode = required(fields, "pool-size", node.field());
		int poolSize = poolNode.wholeNumber(1);
		if (poolSize > pools.threads()) {
			throw poolNode.invalid("must be at most the service's threads (" + pools.threads()
					+ "): a thread must be free to classify, park or reject a request");
		}
		List<FencePath> paths = new ArrayList<>();
		for (Map.Entry<String, YamlNode> entry : required(fields, "paths", node.field()).entries().entrySet()) {
			paths.add(fencePath(entry.getKey(), entry.getValue(), routes, service));
		}
		int pathPermits = paths.stream().mapToInt(FencePath::permits).sum();
		if (pathPermits > poolSize) {
			throw fields.get("paths")
				.invalid("the paths' permits add up to " + pathPermits + ", more than pool-size " + poolSize);
		}
		Integer localPermits = null;
		int localMaxQueue = 100;
		Duration localTimeout = DEFAULT_QUEUE_TIMEOUT;
		if (fields.containsKey("local")) {
			Map<String, YamlNode> local = fields.get("local").entries(FENCE_LOCAL);
			if (local.containsKey("permits")) {
				localPermits = local.get("permits").wholeNumber(0);
				if (localPermits + pathPermits > poolSize) {
					throw local.get("permits")
						.invalid(
								"with the paths' " + pathPermits + " permits it makes more than pool-size " + poolSize);
				}
			}
			localMaxQueue = local.containsKey("max-queue") ? local.get("max-queue").wholeNumber(0) : localMaxQueue;
			localTimeout = local.containsKey("queue-timeout") ? local.get("queue-timeout").duration() : localTimeout;
		}
		Tuning tuning = fields.containsKey("tuning") ? tuning(fields.get("tuning")) : Tuning.DEFAULTS;
		return new Fence(poolSize, paths, localPermits, localMaxQueue, localTimeout, tuning);
	}

	private static FencePath fencePath(String name, YamlNode node, List<Route> routes, String service) {
		if (!NAME.matcher(name).matches() || name.equals("local")) {
			throw node.invalid("a path's name is lower-case letters, digits and '-', and not 'local'");
		}
		Map<String, YamlNode> fields = node.entries(FENCE_PATH);
		int permits = required(fields, "permits", node.field()).wholeNumber(0);
		List<String> patterns = new ArrayList<>();
		for (YamlNode item : required(fields, "routes", node.field()).items()) {
			String pattern = item.text();
			PathPattern parsed;
			try {
				parsed = PathPatternParser.defaultInstance.parse(pattern);
			}
			catch (RuntimeException ex) {
				throw item.invalid("is not a route pattern such as /orders/**: " + ex.getMessage());
			}
			if (routes.stream().noneMatch((route) -> parsed.matches(PathContainer.parsePath(route.path())))) {
				throw item.invalid("'" + pattern + "' matches none of " + service + "'s routes " + routes);
			}
			patterns.add(pattern);
		}
		if (patterns.isEmpty()) {
			throw fields.get("routes").invalid("must list at least one route pattern");
		}
		List<String> methods = new ArrayList<>();
		if (fields.containsKey("methods")) {
			for (YamlNode item : fields.get("methods").items()) {
				if (!METHODS.contains(item.text())) {
					throw item
						.invalid("must be one of " + new java.util.TreeSet<>(METHODS) + ", not '" + item.text() + "'");
				}
				methods.add(item.text());
			}
		}
		int maxQueue = fields.containsKey("max-queue") ? fields.get("max-queue").wholeNumber(0) : 50;
		Duration timeout = fields.containsKey("queue-timeout") ? fields.get("queue-timeout").duration()
				: DEFAULT_QUEUE_TIMEOUT;
		return new FencePath(name, permits, patterns, methods, maxQueue, timeout);
	}

	private static Tuning tuning(YamlNode node) {
		Map<String, YamlNode> fields = node.entries(TUNING);
		Tuning d = Tuning.DEFAULTS;
		Duration interval = fields.containsKey("interval") ? positive(fields.get("interval")) : d.interval();
		Duration window = fields.containsKey("window") ? positive(fields.get("window")) : d.window();
		Duration period = fields.containsKey("period") ? positive(fields.get("period")) : d.period();
		if (window.compareTo(interval) < 0) {
			throw fields.getOrDefault("window", node).invalid("must be at least the interval (" + interval + ")");
		}
		int maxStep = fields.containsKey("max-step") ? fields.get("max-step").wholeNumber(1) : d.maxStep();
		int hysteresis = fields.containsKey("hysteresis") ? fields.get("hysteresis").wholeNumber(0) : d.hysteresis();
		return new Tuning(interval, window, period, maxStep, hysteresis);
	}

	private static List<LoadStream> load(YamlNode node, Service gateway) {
		List<LoadStream> streams = new ArrayList<>();
		Set<String> names = new HashSet<>();
		for (YamlNode item : node.items()) {
			Map<String, YamlNode> fields = item.entries(LOAD);
			YamlNode pathNode = required(fields, "path", item.field());
			String path = pathNode.text();
			if (!NAME.matcher(path).matches()) {
				throw pathNode.invalid("a path's name is lower-case letters, digits and '-', starting with a letter");
			}
			if (!names.add(path)) {
				throw pathNode.invalid("the path '" + path + "' is loaded twice");
			}
			YamlNode requestNode = required(fields, "request", item.field());
			String[] request = split(requestNode, 2, "METHOD /route at the gateway, e.g. 'POST /place-order'");
			if (gateway.route(request[0], request[1]).isEmpty()) {
				throw requestNode.invalid("'" + requestNode.text() + "' is not a route of the gateway " + gateway.name()
						+ ": one of " + gateway.routes());
			}
			double rate = required(fields, "rate", item.field()).positiveNumber();
			boolean bursts = fields.containsKey("bursts") && fields.get("bursts").bool();
			streams.add(new LoadStream(path, request[0], request[1], rate, bursts));
		}
		if (streams.isEmpty()) {
			throw node.invalid("must list at least one path's requests");
		}
		return streams;
	}

	private static Millibottleneck millibottleneck(YamlNode node, Map<String, Service> services, String gateway) {
		Map<String, YamlNode> fields = node.entries(MILLIBOTTLENECK);
		YamlNode sourceNode = required(fields, "source", node.field());
		MillibottleneckSource source;
		try {
			source = MillibottleneckSource.of(sourceNode.text());
		}
		catch (IllegalArgumentException ex) {
			throw sourceNode.invalid(ex.getMessage());
		}
		YamlNode serviceNode = required(fields, "service", node.field());
		String service = serviceNode.text();
		if (!services.containsKey(service) || service.equals(gateway)) {
			throw serviceNode.invalid("must be a service other than the gateway, one of "
					+ services.keySet().stream().filter((name) -> !name.equals(gateway)).toList());
		}
		Duration length = positive(required(fields, "length", node.field()));
		YamlNode periodNode = required(fields, "period", node.field());
		Duration period = positive(periodNode);
		if (period.compareTo(length) <= 0) {
			throw periodNode.invalid("must be longer than the length (" + length.toMillis()
					+ " ms): the service must run between stalls");
		}
		Duration offset = fields.containsKey("offset") ? fields.get("offset").duration() : Duration.ZERO;
		return new Millibottleneck(source, service, length, period, offset);
	}

	/**
	 * Every call names another service and, when that service has routes, one of them;
	 * and no chain of calls comes back to where it started.
	 */
	private static void checkCalls(Map<String, Service> services) {
		for (Service service : services.values()) {
			for (int r = 0; r < service.routes().size(); r++) {
				List<Call> calls = service.routes().get(r).calls();
				for (int c = 0; c < calls.size(); c++) {
					Call call = calls.get(c);
					String field = "services." + service.name() + ".routes[" + r + "].calls[" + c + "]";
					Service target = services.get(call.service());
					if (target == null || target == service) {
						throw new InvalidTopologyException(field, "'" + call + "' calls no other service of the "
								+ "topology; one of "
								+ services.keySet().stream().filter((name) -> !name.equals(service.name())).toList());
					}
					if (target.route(call.method(), call.path()).isEmpty()) {
						throw new InvalidTopologyException(field,
								"'" + call + "' is not a route of " + target.name() + ": one of " + target.routes());
					}
				}
			}
		}
		for (Service service : services.values()) {
			for (int r = 0; r < service.routes().size(); r++) {
				Route route = service.routes().get(r);
				List<String> cycle = cycle(services, service.name(), route, new LinkedHashSet<>());
				if (cycle != null) {
					throw new InvalidTopologyException("services." + service.name() + ".routes[" + r + "]",
							"its calls come back to it: " + String.join(" -> ", cycle));
				}
			}
		}
	}

	/** The chain of routes back to one already on it, or {@code null}. */
	private static List<String> cycle(Map<String, Service> services, String service, Route route,
			LinkedHashSet<String> chain) {
		String here = service + " " + route;
		if (!chain.add(here)) {
			List<String> found = new ArrayList<>(chain);
			found.add(here);
			return found.subList(found.indexOf(here), found.size());
		}
		for (Call call : route.calls()) {
			Service target = services.get(call.service());
			Route next = target.route(call.method(), call.path()).orElseThrow();
			List<String> found = cycle(services, target.name(), next, chain);
			if (found != null) {
				return found;
			}
		}
		chain.remove(here);
		return null;
	}

	private static void checkMillibottleneckIsMet(Topology topology, YamlNode node) {
		Millibottleneck m = topology.millibottleneck();
		List<String> faulty = topology.faultyPaths();
		if (faulty.isEmpty()) {
			throw new InvalidTopologyException(node.field() + ".service",
					"no path's requests reach " + m.service() + ": the millibottleneck would harm nothing");
		}
		if (m.source() == MillibottleneckSource.BURST
				&& faulty.stream().noneMatch((path) -> topology.stream(path).bursts())) {
			throw new InvalidTopologyException(node.field() + ".source",
					"a burst millibottleneck needs a bursting path that reaches " + m.service()
							+ "; paths reaching it: " + faulty);
		}
	}

	private static Duration positive(YamlNode node) {
		Duration duration = node.duration();
		if (duration.isZero()) {
			throw node.invalid("must be longer than 0");
		}
		return duration;
	}

	private static String name(YamlNode node) {
		String name = node.text();
		if (!NAME.matcher(name).matches()) {
			throw node.invalid("lower-case letters, digits and '-', starting with a letter, not '" + name + "'");
		}
		return name;
	}

	private static YamlNode required(Map<String, YamlNode> fields, String key, String parent) {
		YamlNode node = fields.get(key);
		if (node == null || node.isMissing()) {
			throw new InvalidTopologyException(parent.isEmpty() ? key : parent + "." + key, "required");
		}
		return node;
	}

	private static List<String> withRoutes(Map<String, Service> services) {
		return services.values().stream().filter((service) -> !service.isLeaf()).map(Service::name).toList();
	}

	private static Set<String> ordered(String... keys) {
		return new LinkedHashSet<>(List.of(keys));
	}

}
