package io.pathfence.whatif;

import java.util.List;
import java.util.Objects;

/**
 * How far predictions are from the truth, as Slowpoke reports it: each prediction's
 * relative error {@code (predicted - truth) / truth} (negative: an underestimate), their
 * root mean square, and the worst of them.
 *
 * @param count the comparisons
 * @param rmse the root mean square of the relative errors, as a fraction
 * @param worstError the relative error of the largest magnitude, with its sign
 * @param meanError the mean relative error, with its sign: a bias
 */
public record Accuracy(int count, double rmse, double worstError, double meanError) {

	/**
	 * A prediction and the throughput really measured for the same optimisation.
	 *
	 * @param predicted the predicted throughput
	 * @param truth the throughput measured with the optimisation really made
	 */
	public record Comparison(double predicted, double truth) {

		/**
		 * Checks the values.
		 * @throws IllegalArgumentException if a value is not positive and finite
		 */
		public Comparison {
			if (!(Double.isFinite(predicted) && predicted > 0) || !(Double.isFinite(truth) && truth > 0)) {
				throw new IllegalArgumentException(
						"a prediction and its truth must be positive throughputs, were " + predicted + " and " + truth);
			}
		}

		/**
		 * The relative error.
		 * @return {@code (predicted - truth) / truth}
		 */
		public double error() {
			return (this.predicted - this.truth) / this.truth;
		}

	}

	/**
	 * The accuracy over a set of comparisons.
	 * @param comparisons at least one
	 * @return their RMSE, worst and mean error
	 */
	public static Accuracy of(List<Comparison> comparisons) {
		Objects.requireNonNull(comparisons, "comparisons");
		if (comparisons.isEmpty()) {
			throw new IllegalArgumentException("accuracy needs at least one comparison");
		}
		double squares = 0;
		double sum = 0;
		double worst = 0;
		for (Comparison comparison : comparisons) {
			double error = comparison.error();
			squares += error * error;
			sum += error;
			if (Math.abs(error) > Math.abs(worst)) {
				worst = error;
			}
		}
		int n = comparisons.size();
		return new Accuracy(n, Math.sqrt(squares / n), worst, sum / n);
	}

}
