package io.pathfence.sct.cli;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code sct}: the SCT model from the command line. Exit codes: 0 done, 1 internal error,
 * 2 bad input or usage.
 */
@Command(name = "sct", mixinStandardHelpOptions = true, version = "sct 0.1.0",
		description = "Finds the rational concurrency range [Q_lower, Q_upper] of each execution path.",
		subcommands = { AnalyzeCommand.class, CommandLine.HelpCommand.class })
public final class SctCommand implements Runnable {

	@CommandLine.Spec
	CommandLine.Model.CommandSpec spec;

	public static void main(String[] args) {
		System.exit(run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
	}

	/** Runs the command with the given streams; returns the exit code. */
	public static int run(PrintWriter out, PrintWriter err, String... args) {
		System.setProperty("java.awt.headless", "true");
		CommandLine cli = new CommandLine(new SctCommand());
		cli.setOut(out);
		cli.setErr(err);
		return cli.execute(args);
	}

	@Override
	public void run() {
		spec.commandLine().usage(spec.commandLine().getErr());
		throw new CommandLine.ParameterException(spec.commandLine(), "a subcommand is required, e.g. analyze");
	}

}
