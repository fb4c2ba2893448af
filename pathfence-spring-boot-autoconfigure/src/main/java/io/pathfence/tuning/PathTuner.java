package io.pathfence.tuning;

import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;

import io.pathfence.core.PathFence;
import io.pathfence.core.PathFenceListener;
import io.pathfence.core.PathFigures;
import io.pathfence.sct.ConcurrencyAnalyzer;
import io.pathfence.sct.ConcurrencyRecorder;
import io.pathfence.sct.Sample;
import io.pathfence.sct.Sct;
import io.pathfence.sct.SctConfig;
import io.pathfence.sct.SctResult;
import io.pathfence.sct.Verdict;

/**
 * Sizes each path's reservation online with the SCT model. As a {@link PathFenceListener}
 * registered with the fence it feeds every path's arrivals, departures and waits to an
 * SCT recorder (no allocation per task); each {@link #decide()} analyses the latest
 * window of samples of every path and resizes the reservation through the
 * {@link ReservationStep} guards. A plateau lowers a reservation only if requests waited
 * for its permits in the window: a light load that never does reaches a few levels by
 * chance, with throughput that may look flat across them, and lowering on that would cut
 * the path to its quiet time's concurrency just before its next burst. Intervals in which
 * the path's downstream stalled are left out of the analysis ({@link StalledIntervals}):
 * they are the downstream's outage, not points of the path's throughput curve, and read
 * as one they would cut the reservation after every millibottleneck. The local
 * reservation is never tuned: it serves work that calls no downstream, and it keeps what
 * the paths leave of the pool.
 */
public class PathTuner implements PathFenceListener {

	private final PathFence fence;

	private final SctConfig config;

	private final ConcurrencyAnalyzer analyzer;

	private final ReservationStep step;

	private final int localFloor;

	private final LongSupplier nanoClock;

	private final Clock clock;

	/**
	 * Read on every event without a lock; a path added at run time joins it, so it is
	 * concurrent.
	 */
	private final Map<String, ConcurrencyRecorder> recorders = new ConcurrentHashMap<>();

	private final boolean tunesAddedPaths;

	private final Map<String, TuningDecision> decisions = new ConcurrentHashMap<>();

	/** Per path, decisions so far indexed by verdict. */
	private final Map<String, AtomicLongArray> decisionCounts = new ConcurrentHashMap<>();

	/**
	 * @param fence the fence whose reservations are tuned; register the tuner with it as
	 * a listener ({@link PathFence#addListener})
	 * @param paths the tuned paths
	 * @param config the SCT model's interval and window
	 * @param step the guards on each resize
	 * @param localFloor the least the local reservation keeps when it takes what the
	 * paths leave of the pool
	 * @param nanoClock the clock of the recorders, {@link System#nanoTime()} in
	 * production
	 * @param clock the wall clock that stamps decisions
	 */
	public PathTuner(PathFence fence, List<String> paths, SctConfig config, ReservationStep step, int localFloor,
			LongSupplier nanoClock, Clock clock) {
		this(fence, paths, false, config, step, localFloor, nanoClock, clock);
	}

	/**
	 * @param fence the fence whose reservations are tuned; register the tuner with it as
	 * a listener ({@link PathFence#addListener})
	 * @param paths the tuned paths
	 * @param tunesAddedPaths whether paths added to the fence at run time are tuned too
	 * @param config the SCT model's interval and window
	 * @param step the guards on each resize
	 * @param localFloor the least the local reservation keeps when it takes what the
	 * paths leave of the pool
	 * @param nanoClock the clock of the recorders, {@link System#nanoTime()} in
	 * production
	 * @param clock the wall clock that stamps decisions
	 */
	public PathTuner(PathFence fence, List<String> paths, boolean tunesAddedPaths, SctConfig config,
			ReservationStep step, int localFloor, LongSupplier nanoClock, Clock clock) {
		this.tunesAddedPaths = tunesAddedPaths;
		this.fence = fence;
		this.config = config;
		this.analyzer = Sct.analyzer(config);
		this.step = step;
		this.localFloor = localFloor;
		this.nanoClock = nanoClock;
		this.clock = clock;
		for (String path : paths) {
			this.recorders.put(path, Sct.recorder(config, nanoClock));
			this.decisionCounts.put(path, new AtomicLongArray(Verdict.values().length));
		}
	}

	/** Whether paths added to the fence at run time are tuned. */
	public boolean tunesAddedPaths() {
		return this.tunesAddedPaths;
	}

	/** Whether a path is tuned. */
	public boolean tunes(String path) {
		return this.recorders.containsKey(path);
	}

	public SctConfig getConfig() {
		return this.config;
	}

	@Override
	public void onPathAdded(String path, int permits) {
		if (this.tunesAddedPaths) {
			// The counts first: a decision on the path may follow as soon as it records.
			this.decisionCounts.putIfAbsent(path, new AtomicLongArray(Verdict.values().length));
			this.recorders.putIfAbsent(path, Sct.recorder(this.config, this.nanoClock));
		}
	}

	/** A removed path is tuned no more; a path of its name added later starts afresh. */
	@Override
	public void onPathRemoved(String path, int permits) {
		this.recorders.remove(path);
		this.decisions.remove(path);
		this.decisionCounts.remove(path);
	}

	@Override
	public void onQueued(String path) {
		ConcurrencyRecorder recorder = this.recorders.get(path);
		if (recorder != null) {
			recorder.waitStarted(this.nanoClock.getAsLong());
		}
	}

	@Override
	public void onDequeued(String path) {
		ConcurrencyRecorder recorder = this.recorders.get(path);
		if (recorder != null) {
			recorder.waitEnded(this.nanoClock.getAsLong());
		}
	}

	@Override
	public void onGranted(String path, long waitNanos) {
		ConcurrencyRecorder recorder = this.recorders.get(path);
		if (recorder != null) {
			recorder.arrived(this.nanoClock.getAsLong());
		}
	}

	@Override
	public void onReleased(String path, long serviceNanos) {
		ConcurrencyRecorder recorder = this.recorders.get(path);
		if (recorder != null) {
			long now = this.nanoClock.getAsLong();
			recorder.departed(now - serviceNanos, now);
		}
	}

	/**
	 * Analyses every tuned path's latest window and resizes its reservation; returns the
	 * decisions.
	 */
	public Map<String, TuningDecision> decide() {
		PathFence target = this.fence;
		long now = this.nanoClock.getAsLong();
		for (Map.Entry<String, ConcurrencyRecorder> entry : this.recorders.entrySet()) {
			String path = entry.getKey();
			List<Sample> window = entry.getValue().snapshot(now);
			boolean[] stalled = StalledIntervals.of(window);
			int stalls = StalledIntervals.count(stalled);
			SctResult result = this.analyzer.analyze((stalls > 0) ? StalledIntervals.leftOut(window, stalled) : window);
			if (!target.hasPath(path) || this.recorders.get(path) != entry.getValue()) {
				// Removed since this loop began, perhaps added again with a window of its
				// own: this window has nothing left to size.
				continue;
			}
			int current;
			int room;
			try {
				current = target.figures(path).permits();
				room = roomFor(target, path);
			}
			catch (IllegalArgumentException removed) {
				continue;
			}
			int next = this.step.next(result, current, room);
			String guard = null;
			if (next < current && result.verdict() == Verdict.PLATEAU && !reservationBound(result)) {
				// Requests that never wait flatten the throughput by asking little, not
				// by saturating anything, and such a plateau says nothing of what the
				// path
				// needs in its next burst.
				guard = "Held at " + current + ": at no level did " + this.config.waitingThreshold()
						+ " or more requests wait for a permit on average, so the plateau is the load's, not the path's limit.";
				next = current;
			}
			else if (next != current) {
				try {
					target.resize(path, next);
				}
				catch (IllegalArgumentException ex) {
					guard = "Resize refused: " + ex.getMessage();
					next = current;
				}
			}
			else if (result.recommended().isPresent() && result.recommended().getAsInt() != current) {
				guard = "Held at " + current + " by the guards (min, max, room in the pool, hysteresis).";
			}
			if (stalls > 0) {
				String left = "Left out " + stalls + " of " + window.size()
						+ " intervals in which a stalled downstream held the path's requests.";
				guard = (guard != null) ? guard + " " + left : left;
			}
			TuningDecision decision = TuningDecision.of(path, result, current, next, guard, this.clock.instant());
			this.decisions.put(path, decision);
			if (this.recorders.get(path) != entry.getValue()) {
				// Removed while this decision was made, after onPathRemoved cleared the
				// path's decision: none is kept for a path that is gone.
				this.decisions.remove(path, decision);
				continue;
			}
			AtomicLongArray counts = this.decisionCounts.get(path);
			if (counts != null) {
				counts.incrementAndGet(result.verdict().ordinal());
			}
		}
		return Map.copyOf(this.decisions);
	}

	/** The latest decision of each tuned path. */
	public Map<String, TuningDecision> decisions() {
		return Map.copyOf(this.decisions);
	}

	/** The latest decision of one path, if it has had one. */
	public Optional<TuningDecision> decision(String path) {
		return Optional.ofNullable(this.decisions.get(path));
	}

	/**
	 * How many decisions on this path had this verdict so far; 0 for a path that is not
	 * tuned.
	 */
	public long decisionCount(String path, Verdict verdict) {
		AtomicLongArray counts = this.decisionCounts.get(path);
		return (counts != null) ? counts.get(verdict.ordinal()) : 0;
	}

	/**
	 * Whether the window saw the reservation hold the path back: at some concurrency
	 * level, requests waited for a permit as much as SCT's waiting threshold on average.
	 * Only then can a plateau lower the reservation.
	 */
	private boolean reservationBound(SctResult result) {
		return result.levels()
			.stream()
			.anyMatch((level) -> level.samples() > 0 && level.meanWaiting() >= this.config.waitingThreshold());
	}

	/**
	 * The most this path can hold while the other paths keep theirs and local keeps its
	 * floor.
	 */
	private int roomFor(PathFence target, String path) {
		int others = 0;
		int local = 0;
		for (PathFigures figures : target.figures()) {
			if (figures.local()) {
				local = figures.permits();
			}
			else if (!figures.path().equals(path)) {
				others += figures.permits();
			}
		}
		int localKeeps = target.localIsRemainder() ? this.localFloor : local;
		return target.poolSize() - others - localKeeps;
	}

}
