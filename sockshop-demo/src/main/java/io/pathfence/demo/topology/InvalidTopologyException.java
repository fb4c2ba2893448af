package io.pathfence.demo.topology;

/**
 * A topology file that cannot be run, with the field at fault: {@code field: problem}.
 */
public class InvalidTopologyException extends IllegalArgumentException {

	private final String field;

	private final String problem;

	public InvalidTopologyException(String field, String problem) {
		this(null, field, problem);
	}

	private InvalidTopologyException(String file, String field, String problem) {
		super(((file != null) ? file + ": " : "") + (field.isEmpty() ? problem : field + ": " + problem));
		this.field = field;
		this.problem = problem;
	}

	/** The same refusal, with the file it is about in front of the message. */
	public InvalidTopologyException in(String file) {
		return new InvalidTopologyException(file, this.field, this.problem);
	}

	/**
	 * The field at fault, as a path from the file's root, e.g.
	 * {@code services.orders.pools.threads}.
	 */
	public String getField() {
		return this.field;
	}

}
