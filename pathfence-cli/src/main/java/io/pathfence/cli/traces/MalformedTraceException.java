package io.pathfence.cli.traces;

/**
 * A trace file the command cannot read, with where: the message is one line naming the
 * span (its place in the file and its id) and the field, or the line and column of a
 * syntax error. The file's name is put in front by the caller.
 */
public final class MalformedTraceException extends Exception {

	private static final long serialVersionUID = 1L;

	public MalformedTraceException(String message) {
		super(message, null, false, false);
	}

}
