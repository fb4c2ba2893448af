package io.pathfence.tuning;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.SmartLifecycle;

/**
 * Runs the {@link PathTuner}'s decisions periodically while the application runs, on one
 * daemon thread.
 */
public class TuningSchedule implements SmartLifecycle {

	private static final Log logger = LogFactory.getLog(TuningSchedule.class);

	private final PathTuner tuner;

	private final Duration period;

	private ScheduledExecutorService scheduler;

	public TuningSchedule(PathTuner tuner, Duration period) {
		this.tuner = tuner;
		this.period = period;
	}

	@Override
	public synchronized void start() {
		if (this.scheduler != null) {
			return;
		}
		this.scheduler = Executors.newSingleThreadScheduledExecutor((runnable) -> {
			Thread thread = new Thread(runnable, "pathfence-tuner");
			thread.setDaemon(true);
			return thread;
		});
		long periodNanos = this.period.toNanos();
		this.scheduler.scheduleAtFixedRate(this::decide, periodNanos, periodNanos, TimeUnit.NANOSECONDS);
	}

	private void decide() {
		try {
			this.tuner.decide()
				.values()
				.stream()
				.filter((decision) -> decision.permitsAfter() != decision.permitsBefore())
				.forEach((decision) -> logger
					.info("Path '" + decision.path() + "' resized from " + decision.permitsBefore() + " to "
							+ decision.permitsAfter() + " permits: " + decision.reason()));
		}
		catch (RuntimeException | Error ex) {
			// A failed decision must not end the schedule: the next window may well be
			// fine. An error thrown out of here would end it silently, as a scheduled
			// executor keeps the failure in a future nobody reads.
			logger.warn("PathFence tuning decision failed", ex);
		}
	}

	@Override
	public synchronized void stop() {
		if (this.scheduler != null) {
			this.scheduler.shutdownNow();
			this.scheduler = null;
		}
	}

	@Override
	public synchronized boolean isRunning() {
		return this.scheduler != null;
	}

}
