package io.pathfence.cli;

import java.io.PrintWriter;

import io.pathfence.sct.cli.SctCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code pathfence}: the project's command line. Exit codes: 0 done, 1 internal error, 2
 * bad input or usage.
 */
@Command(name = "pathfence", mixinStandardHelpOptions = true, version = "pathfence 0.1.0",
		description = "Learns execution paths from traces (paths) and sizes reservations (sct analyze).",
		subcommands = { PathsCommand.class, SctCommand.class, CommandLine.HelpCommand.class })
public final class PathFenceCommand implements Runnable {

	@CommandLine.Spec
	CommandLine.Model.CommandSpec spec;

	public static void main(String[] args) {
		System.exit(run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
	}

	/** Runs the command with the given streams; returns the exit code. */
	public static int run(PrintWriter out, PrintWriter err, String... args) {
		// sct analyze draws its plots without a display.
		System.setProperty("java.awt.headless", "true");
		CommandLine cli = new CommandLine(new PathFenceCommand());
		cli.setOut(out);
		cli.setErr(err);
		return cli.execute(args);
	}

	@Override
	public void run() {
		// picocli prints the message and the usage.
		throw new CommandLine.ParameterException(this.spec.commandLine(),
				"a subcommand is required: paths or sct analyze");
	}

}
