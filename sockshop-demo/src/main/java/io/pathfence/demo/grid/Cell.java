package io.pathfence.demo.grid;

import io.pathfence.demo.run.ModeResult;
import io.pathfence.demo.run.Trace;
import io.pathfence.demo.topology.Topology;

/**
 * One cell of the grid: an application under a trace in a mode.
 *
 * @param topology the application
 * @param trace the trace
 * @param result what the mode's run measured
 */
record Cell(Topology topology, Trace trace, ModeResult result) {
}
