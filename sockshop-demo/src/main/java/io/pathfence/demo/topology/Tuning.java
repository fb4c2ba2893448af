package io.pathfence.demo.topology;

import java.time.Duration;

/**
 * How the SCT model sizes reservations online, in the modes that tune: the starter's
 * {@code pathfence.tuning.*} at the fenced service, and the asynchronous counterpart's
 * worker limit at every service.
 *
 * @param interval one sample's length
 * @param window the samples one decision looks at
 * @param period how often a decision is made
 * @param maxStep the most one decision changes a reservation by
 * @param hysteresis the least change a plateau recommendation must ask for
 */
public record Tuning(Duration interval, Duration window, Duration period, int maxStep, int hysteresis) {

	/**
	 * The paper's SCT looks at a few minutes of samples; a demo's phases last tens of
	 * seconds, so its window does too, and it decides four times a window.
	 */
	public static final Tuning DEFAULTS = new Tuning(Duration.ofMillis(50), Duration.ofSeconds(20),
			Duration.ofSeconds(5), 4, 2);

}
