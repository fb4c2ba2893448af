package io.pathfence.demo.whatif;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The reductions a what-if run asks about, from {@code --reduce}: a range with a step,
 * {@code 10..50%/10} (10, 20, 30, 40 and 50 %), or a list, {@code 15%,30%}. Each must lie
 * strictly between 0 and 100 %: a cut of nothing asks nothing, and a cut of all of the
 * target's time is no optimisation the model can emulate.
 */
final class Reductions {

	private static final Pattern RANGE = Pattern
		.compile("(\\d+(?:\\.\\d+)?)\\.\\.(\\d+(?:\\.\\d+)?)%?/(\\d+(?:\\.\\d+)?)%?");

	private static final Pattern ONE = Pattern.compile("(-?\\d+(?:\\.\\d+)?)%");

	private Reductions() {
	}

	/**
	 * The fractions (0.1 for 10 %), in the order given.
	 * @throws IllegalArgumentException saying what is allowed
	 */
	static List<Double> parse(String text) {
		String spec = text.strip();
		Matcher range = RANGE.matcher(spec);
		List<Double> percents = new ArrayList<>();
		if (range.matches()) {
			BigDecimal from = new BigDecimal(range.group(1));
			BigDecimal to = new BigDecimal(range.group(2));
			BigDecimal step = new BigDecimal(range.group(3));
			if (step.signum() <= 0 || from.compareTo(to) > 0) {
				throw new IllegalArgumentException("--reduce " + text + ": a range goes up from its start to its end by"
						+ " a step above 0, as in 10..50%/10");
			}
			// Decimal steps, so that 10..50/10 ends on 50 and not just short of it.
			for (BigDecimal at = from; at.compareTo(to) <= 0; at = at.add(step)) {
				percents.add(at.doubleValue());
			}
		}
		else {
			for (String one : spec.split(",")) {
				Matcher m = ONE.matcher(one.strip());
				if (!m.matches()) {
					throw new IllegalArgumentException("--reduce " + text + ": say a range such as 10..50%/10 or a list"
							+ " of percentages such as 15%,30%");
				}
				percents.add(Double.parseDouble(m.group(1)));
			}
		}
		List<Double> fractions = new ArrayList<>();
		for (double percent : percents) {
			if (!(percent > 0 && percent < 100)) {
				throw new IllegalArgumentException("--reduce " + text + ": each reduction must lie strictly between 0 %"
						+ " and 100 % of the target's CPU time per call, not " + format(percent) + " %");
			}
			fractions.add(percent / 100);
		}
		return fractions;
	}

	private static String format(double percent) {
		return (percent == Math.rint(percent)) ? Long.toString((long) percent) : Double.toString(percent);
	}

}
