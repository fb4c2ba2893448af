package io.pathfence.demo;

import java.util.Arrays;

import io.pathfence.demo.grid.GridCommand;
import io.pathfence.demo.run.RunCommand;
import io.pathfence.demo.service.ServiceApplication;
import io.pathfence.demo.whatif.WhatIfCommand;

/**
 * One jar, four jobs: {@code run ...} runs an experiment on one application (it starts
 * the services itself), {@code grid ...} runs the paper's whole evaluation,
 * {@code whatif ...} predicts what a faster service would do to the shop's throughput,
 * and {@code --role=NAME} starts one service of an application.
 */
public final class DemoApplication {

	private DemoApplication() {
	}

	public static void main(String[] args) {
		if (args.length > 0 && args[0].equals("run")) {
			System.exit(RunCommand.commandLine().execute(Arrays.copyOfRange(args, 1, args.length)));
		}
		if (args.length > 0 && args[0].equals("grid")) {
			System.exit(GridCommand.commandLine().execute(Arrays.copyOfRange(args, 1, args.length)));
		}
		if (args.length > 0 && args[0].equals("whatif")) {
			System.exit(WhatIfCommand.commandLine().execute(Arrays.copyOfRange(args, 1, args.length)));
		}
		ServiceApplication.start(args);
	}

}
