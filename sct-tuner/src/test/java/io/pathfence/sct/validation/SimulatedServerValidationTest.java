package io.pathfence.sct.validation;

import static org.assertj.core.api.Assertions.assertThat;

import io.pathfence.sct.SctConfig;
import io.pathfence.sct.SctResult;
import java.time.Duration;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 3 part 3a: on simulated services of several shapes, the reservation SCT settles on online is within 20 %
 * of the knee of a brute-force sweep, and the sweep's throughput at it is at least 95 % of the sweep's maximum.
 * Each shape is tuned twice, for five windows of decisions: from a reservation far too small (it must explore
 * upwards) and from one three times too large (congestion collapse). The reservation it settles on is the median
 * of the PLATEAU recommendations of the second half of the run; exploring steps in between are transient by design,
 * but they must not dominate: at least half the decisions of that half are plateaus.
 */
class SimulatedServerValidationTest {

    static Stream<Arguments> shapes() {
        return Stream.of(
                Arguments.of(new SimulatedServer.Shape("4 cores, 2 ms CPU + 6 ms I/O", 4, 2, 6, 0.02), 50),
                Arguments.of(new SimulatedServer.Shape("8 cores, 1 ms CPU + 2 ms I/O", 8, 1, 2, 0.05), 50),
                Arguments.of(new SimulatedServer.Shape("2 cores, 1 ms CPU + 9 ms I/O", 2, 1, 9, 0.05), 50),
                Arguments.of(new SimulatedServer.Shape("16 cores, 4 ms CPU + 28 ms I/O", 16, 4, 28, 0.01), 100));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shapes")
    void onlineRecommendationMatchesTheSweepKnee(SimulatedServer.Shape shape, int intervalMillis) {
        int analytic = (int) Math.round(shape.analyticKnee());
        Sweep sweep = Sweep.of(Sweep.levels(2 * analytic, 24),
                n -> SimulatedServer.Session.closed(shape, n, 7).run(4, null, null));
        SctConfig config = SctConfig.builder().interval(Duration.ofMillis(intervalMillis)).build();

        for (int initial : new int[] {Math.max(1, analytic / 4), 3 * analytic}) {
            OnlineTuning.Trace trace = OnlineTuning.run(shape, SimulatedServer.Load.bursty(), initial, 15, config, 11);
            SctResult result = trace.last();
            String story = String.format(Locale.ROOT,
                    "%s from %d: settled %s, limits %s %s, knee %d (analytic %d), sweep %s; last: %s",
                    shape, initial, trace.settled(), trace.limits(), trace.verdicts(), sweep.knee(), analytic, sweep,
                    result.reason());

            assertThat(trace.plateauShareOfSecondHalf()).as(story).isGreaterThanOrEqualTo(0.5);
            int recommended = trace.settled().orElseThrow(() -> new AssertionError(story));
            double throughputThere = SimulatedServer.Session.closed(shape, recommended, 7).run(4, null, null)
                    .throughput();
            System.out.printf(Locale.ROOT, "VALIDATION | %s | from %d | settled %d | knee %d | error %+.0f %% |"
                            + " throughput %.1f %% of max%n", shape, initial, recommended, sweep.knee(),
                    100.0 * (recommended - sweep.knee()) / sweep.knee(), 100 * throughputThere / sweep.maxThroughput());
            assertThat((double) recommended).as(story).isBetween(0.8 * sweep.knee(), 1.2 * sweep.knee());
            assertThat(throughputThere).as(story).isGreaterThanOrEqualTo(0.95 * sweep.maxThroughput());
        }
    }
}
