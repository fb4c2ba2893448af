package io.pathfence.discovery.trace;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

import io.pathfence.discovery.Route;

/**
 * The critical paths of one route's requests: per service, the median over the requests
 * of its share of each request's critical path (0 for a request it had no part in). The
 * medians are each service's typical share, so they need not add up to one.
 *
 * @param route the route
 * @param requests the requests analysed (those of zero duration cannot be)
 * @param medianNanos the median duration of the requests
 * @param byService median share by the service that spent the time, largest first
 * @param byDownstream median share by the route's direct downstream the time was spent
 * under, its own service's time under its own name, largest first
 * @param service the service the route belongs to
 */
public record RouteCriticalPath(Route route, int requests, long medianNanos, List<Share> byService,
		List<Share> byDownstream, String service) {

	private static final Comparator<Share> LARGEST_FIRST = Comparator.comparingDouble(Share::median)
		.reversed()
		.thenComparing(Share::service);

	public RouteCriticalPath {
		byService = List.copyOf(byService);
		byDownstream = List.copyOf(byDownstream);
	}

	/** The critical paths of every route the learning found, by route. */
	public static List<RouteCriticalPath> of(TraceLearning learning) {
		List<RouteCriticalPath> all = new ArrayList<>();
		learning.requests().forEach((route, requests) -> {
			List<CriticalPath> paths = new ArrayList<>();
			for (TraceLearning.Request request : requests) {
				if (request.server().durationNanos() > 0) {
					paths.add(CriticalPath.of(request.tree(), request.server()));
				}
			}
			if (!paths.isEmpty()) {
				all.add(of(route, learning.service(), paths));
			}
		});
		return all;
	}

	static RouteCriticalPath of(Route route, String service, List<CriticalPath> paths) {
		double[] durations = paths.stream().mapToDouble(CriticalPath::totalNanos).toArray();
		return new RouteCriticalPath(route, paths.size(), Math.round(median(durations)),
				shares(paths, CriticalPath::byService), shares(paths, CriticalPath::byDownstream), service);
	}

	/**
	 * The direct downstream with the largest median share, or null for a route that calls
	 * none.
	 */
	public Share dominantDownstream() {
		return this.byDownstream.stream()
			.filter((share) -> !share.service().equals(this.service))
			.findFirst()
			.orElse(null);
	}

	/** The service with the largest median share. */
	public Share dominantService() {
		return this.byService.isEmpty() ? null : this.byService.get(0);
	}

	private static List<Share> shares(List<CriticalPath> paths, Function<CriticalPath, Map<String, Long>> parts) {
		Set<String> names = new TreeSet<>();
		paths.forEach((path) -> names.addAll(parts.apply(path).keySet()));
		List<Share> shares = new ArrayList<>();
		for (String name : names) {
			double[] fractions = new double[paths.size()];
			for (int i = 0; i < paths.size(); i++) {
				CriticalPath path = paths.get(i);
				fractions[i] = parts.apply(path).getOrDefault(name, 0L) / (double) path.totalNanos();
			}
			shares.add(new Share(name, median(fractions)));
		}
		shares.sort(LARGEST_FIRST);
		return shares;
	}

	static double median(double[] values) {
		double[] sorted = values.clone();
		Arrays.sort(sorted);
		int n = sorted.length;
		return (n % 2 == 1) ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	}

	/**
	 * A service's median share of the critical path.
	 *
	 * @param service the service
	 * @param median the median share, from 0 to 1
	 */
	public record Share(String service, double median) {
	}

}
