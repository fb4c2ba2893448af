package io.pathfence.cli.traces;

import io.pathfence.discovery.trace.Span;

/**
 * A span as read, with where it is in its file and what its format calls the fields that
 * link it into its trace, for messages about the trace as a whole.
 *
 * @param span the span
 * @param where its place in the file
 * @param idField the format's name of the span id
 * @param parentField the format's name of the parent link
 */
record ReadSpan(Span span, String where, String idField, String parentField) {
}
