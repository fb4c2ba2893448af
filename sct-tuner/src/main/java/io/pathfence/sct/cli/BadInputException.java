package io.pathfence.sct.cli;

/** Input the CLI refuses, with where it is: printed as one line, exit code 2. */
final class BadInputException extends Exception {

	private static final long serialVersionUID = 1L;

	BadInputException(String message) {
		super(message, null, false, false);
	}

	static BadInputException at(int row, String column, String problem) {
		return new BadInputException("row " + row + ", column " + column + ": " + problem);
	}

}
