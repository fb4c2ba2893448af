package io.pathfence.whatif.rounds;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import io.pathfence.whatif.SlowdownPlan;
import io.pathfence.whatif.agent.PauseResult;

/**
 * Coordinated pauses: rounds started by the target's served calls, each paying every
 * paused service its accumulated debt at once (Slowpoke, NSDI '26, §4).
 * <p>
 * Whoever observes the target reports its served-call count to {@link #targetServed};
 * every {@link SlowdownPlan#batch()} calls a round starts. A round pays each paused
 * service for the calls it served since its last payment, times its pause per call: the
 * calls its own counter reports when it has one, else the target's calls since then times
 * {@code c_i / c_t}. Each service is paused on a thread of its own, so the round reaches
 * all of them together instead of one after the other (uncoordinated pauses lined up
 * along a call path are what made Slowpoke's early errors large). A service still paused
 * for an earlier round skips the new one, and its debt waits for the next: a service is
 * never paused twice at once and its total pause is what its calls owe.
 */
public final class RoundCoordinator implements AutoCloseable {

	private final Rounds rounds;

	private final List<PausedService> services = new ArrayList<>();

	private long lastTargetServed;

	private RoundCoordinator(long batch, long targetServedNow) {
		this.rounds = new Rounds(batch, targetServedNow);
		this.lastTargetServed = targetServedNow;
	}

	/**
	 * Starts coordinating a plan's pauses.
	 * @param plan what to pause and by how much
	 * @param agents what pauses each service, by name; every service the plan pauses must
	 * have one (others, such as the target's, are ignored)
	 * @param callCounters the calls each service has served so far, for those that count
	 * them; a service without one is charged its expected calls
	 * @param targetServedNow the target's served calls now: the first round starts a
	 * batch later
	 * @return the coordinator; close it to stop its threads
	 * @throws IllegalArgumentException if a paused service has no agent
	 */
	public static RoundCoordinator start(SlowdownPlan plan, Map<String, Pauser> agents,
			Map<String, LongSupplier> callCounters, long targetServedNow) {
		Objects.requireNonNull(plan, "plan");
		Objects.requireNonNull(agents, "agents");
		Objects.requireNonNull(callCounters, "callCounters");
		for (String service : plan.pausesPerCall().keySet()) {
			if (agents.get(service) == null) {
				throw new IllegalArgumentException("service '" + service
						+ "' is paused by the plan but has no pause agent (agents: " + agents.keySet() + ")");
			}
		}
		RoundCoordinator coordinator = new RoundCoordinator(plan.batch(), targetServedNow);
		plan.pausesPerCall()
			.forEach((service, nanosPerCall) -> coordinator.services.add(new PausedService(service, nanosPerCall,
					plan.callsPerTargetCall(service), agents.get(service), callCounters.get(service))));
		return coordinator;
	}

	/**
	 * Reports the target's served calls; starts a round if one is due. Call it from one
	 * thread, as often as the count is known (every call, or every few milliseconds).
	 * @param served the target's served calls so far
	 * @return the round started, or 0 when none was due
	 */
	public synchronized long targetServed(long served) {
		long round = this.rounds.due(served);
		if (round == 0) {
			return 0;
		}
		double targetCalls = served - this.lastTargetServed;
		this.lastTargetServed = served;
		for (PausedService service : this.services) {
			service.startRound(round, targetCalls);
		}
		return round;
	}

	/**
	 * The last round started.
	 * @return its number, 0 before the first
	 */
	public synchronized long rounds() {
		return this.rounds.last();
	}

	/**
	 * What each paused service was paused for so far, in the plan's order.
	 * @return one entry per paused service
	 */
	public List<ServicePauses> report() {
		return this.services.stream().map(PausedService::report).toList();
	}

	/**
	 * Waits until no service is being paused.
	 * @param timeout the longest wait
	 * @return whether every pause had ended in time
	 * @throws InterruptedException if interrupted while waiting
	 */
	public boolean awaitIdle(Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		for (PausedService service : this.services) {
			if (!service.awaitIdle(deadline)) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Stops starting pauses and waits a little for those under way; their agents end them
	 * on time either way.
	 */
	@Override
	public void close() {
		for (PausedService service : this.services) {
			service.sender.shutdown();
		}
		try {
			for (PausedService service : this.services) {
				service.sender.awaitTermination(10, TimeUnit.SECONDS);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static final class PausedService {

		private final String name;

		private final double callsPerTargetCall;

		private final Pauser pauser;

		private final LongSupplier callCounter;

		private final ExecutorService sender;

		// Guarded by this.
		private final Debt debt;

		private long lastCount;

		private boolean busy;

		private long paid;

		private long skipped;

		private long requested;

		private long stopped;

		private long failures;

		private String lastFailure;

		PausedService(String name, double nanosPerCall, double callsPerTargetCall, Pauser pauser,
				LongSupplier callCounter) {
			this.name = name;
			this.callsPerTargetCall = callsPerTargetCall;
			this.pauser = pauser;
			this.callCounter = callCounter;
			this.debt = new Debt(nanosPerCall);
			this.lastCount = (callCounter != null) ? callCounter.getAsLong() : 0;
			ThreadPoolExecutor sender = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
					(task) -> {
						Thread thread = new Thread(task, "pause-" + name);
						thread.setDaemon(true);
						return thread;
					});
			// Started now rather than by the first round, which would otherwise reach
			// this
			// service a thread's start later than the others.
			sender.prestartAllCoreThreads();
			this.sender = sender;
		}

		void startRound(long round, double targetCalls) {
			long nanos;
			synchronized (this) {
				if (this.callCounter != null) {
					long count = this.callCounter.getAsLong();
					this.debt.accrue(count - this.lastCount);
					this.lastCount = count;
				}
				else {
					this.debt.accrue(targetCalls * this.callsPerTargetCall);
				}
				if (this.busy) {
					this.skipped++;
					return;
				}
				this.busy = true;
				nanos = this.debt.take();
			}
			this.sender.execute(() -> pay(round, nanos));
		}

		private void pay(long round, long nanos) {
			try {
				PauseResult result = this.pauser.pause(round, nanos);
				synchronized (this) {
					this.paid++;
					this.requested += nanos;
					this.stopped += result.stoppedNanos();
				}
			}
			catch (IOException | RuntimeException ex) {
				synchronized (this) {
					this.failures++;
					this.lastFailure = "round " + round + ": " + ex.getMessage();
				}
			}
			finally {
				synchronized (this) {
					this.busy = false;
					notifyAll();
				}
			}
		}

		synchronized boolean awaitIdle(long deadline) throws InterruptedException {
			while (this.busy) {
				long left = deadline - System.nanoTime();
				if (left <= 0) {
					return false;
				}
				TimeUnit.NANOSECONDS.timedWait(this, left);
			}
			return true;
		}

		synchronized ServicePauses report() {
			return new ServicePauses(this.name, this.paid, this.skipped, this.requested, this.stopped,
					this.debt.owedNanos(), this.failures, this.lastFailure);
		}

	}

}
