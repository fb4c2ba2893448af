package io.pathfence.demo.service;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.annotation.PreDestroy;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

import io.pathfence.core.PathFence;
import io.pathfence.core.PathFigures;

/**
 * How many requests of each path a service is working on, and how many calls of each path
 * it has out to its downstreams, sampled every 50 ms into a CSV file
 * ({@code demo.occupancy-file}) for the plots. The samples are written by the service
 * itself, so a service with no free thread is still seen.
 * <p>
 * With PathFence the file also holds each path's permits in use, queue and size at the
 * fence; in the event-driven mode, the worker pool's ({@link WorkerPool#WORKERS}).
 * Without PathFence, requests that wait for one of Tomcat's threads are invisible here,
 * which is why the gateway's outgoing calls are sampled too: what the gateway has sent to
 * the shared service but that one is not working on is waiting there (in Tomcat's queue,
 * its TCP backlog, or a dropped SYN's retransmission).
 */
@Component
public class Occupancy {

	private static final long SAMPLE_MILLIS = 50;

	private final Map<String, AtomicInteger> working = new ConcurrentHashMap<>();

	private final Map<String, AtomicInteger> calling = new ConcurrentHashMap<>();

	private final ObjectProvider<PathFence> fence;

	private final ObjectProvider<WorkerPool> workers;

	private final ScheduledExecutorService sampler;

	private final PrintWriter out;

	public Occupancy(@Value("${demo.occupancy-file:}") String file, ObjectProvider<PathFence> fence,
			ObjectProvider<WorkerPool> workers) throws IOException {
		this.fence = fence;
		this.workers = workers;
		if (file.isEmpty()) {
			this.out = null;
			this.sampler = null;
			return;
		}
		Path target = Path.of(file);
		Files.createDirectories(target.toAbsolutePath().getParent());
		this.out = new PrintWriter(Files.newBufferedWriter(target));
		this.out.println("epoch_millis,path,working,calling,fence_active,fence_queued,fence_permits");
		this.sampler = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "occupancy-sampler");
			thread.setDaemon(true);
			return thread;
		});
		this.sampler.scheduleAtFixedRate(this::sample, SAMPLE_MILLIS, SAMPLE_MILLIS, TimeUnit.MILLISECONDS);
	}

	/**
	 * Marks the start of work on a request of {@code path}; close the returned scope when
	 * it ends.
	 */
	public Scope working(String path) {
		return enter(this.working, path);
	}

	/**
	 * Marks the start of a call to a downstream on behalf of a request of {@code path}.
	 */
	public Scope calling(String path) {
		return enter(this.calling, path);
	}

	private static Scope enter(Map<String, AtomicInteger> counts, String path) {
		AtomicInteger count = counts.computeIfAbsent(path, (key) -> new AtomicInteger());
		count.incrementAndGet();
		return count::decrementAndGet;
	}

	private void sample() {
		long now = System.currentTimeMillis();
		Map<String, PathFigures> figures = new HashMap<>();
		PathFence pathFence = this.fence.getIfAvailable();
		if (pathFence != null) {
			for (PathFigures f : pathFence.figures()) {
				figures.put(f.path(), f);
			}
		}
		WorkerPool pool = this.workers.getIfAvailable();
		if (pool != null) {
			figures.put(WorkerPool.WORKERS, pool.figures());
		}
		Set<String> paths = new TreeSet<>(this.working.keySet());
		paths.addAll(this.calling.keySet());
		paths.addAll(figures.keySet());
		for (String path : paths) {
			PathFigures f = figures.get(path);
			this.out.printf("%d,%s,%d,%d,%d,%d,%d%n", now, path, value(this.working, path), value(this.calling, path),
					(f != null) ? f.active() : -1, (f != null) ? f.queued() : -1, (f != null) ? f.permits() : -1);
		}
		this.out.flush();
	}

	private static int value(Map<String, AtomicInteger> counts, String path) {
		AtomicInteger count = counts.get(path);
		return (count != null) ? count.get() : 0;
	}

	@PreDestroy
	void stop() {
		if (this.sampler != null) {
			this.sampler.shutdownNow();
			this.out.close();
		}
	}

	/** The end of a piece of work that was counted. */
	@FunctionalInterface
	public interface Scope extends AutoCloseable {

		@Override
		void close();

	}

}
