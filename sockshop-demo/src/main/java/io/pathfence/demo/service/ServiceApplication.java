package io.pathfence.demo.service;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

import io.pathfence.demo.topology.Service;
import io.pathfence.demo.topology.Topologies;
import io.pathfence.demo.topology.Topology;

/**
 * One service of an application: {@code --role=NAME} picks which, {@code --topology=APP}
 * (an application's name or a topology file; SockShop by default) the application. The
 * topology gives the service its work, pools, routes and calls, and PathFence's
 * reservations where it has them; whether it runs on platform threads, virtual threads or
 * event-driven (WebFlux on Netty) is the mode's, on the command line.
 */
@SpringBootApplication
public class ServiceApplication {

	public static void start(String[] args) {
		Topology topology = Topologies.load(argument(args, "--topology=", Topologies.DEFAULT));
		String role = argument(args, "--role=", null);
		if (role == null) {
			throw new IllegalArgumentException("Say which service to start with --role=NAME, one of "
					+ topology.services().keySet() + ", or run an experiment with 'run' or 'grid'");
		}
		Service service = topology.service(role);
		SpringApplication application = new SpringApplication(ServiceApplication.class);
		// With discovery enforcing, the shared service learns its paths: the topology's
		// are
		// left out, so that nothing is configured by hand.
		boolean learnsPaths = "enforce".equals(argument(args, "--pathfence.discovery.mode=", "off"));
		application.setDefaultProperties(ServiceDefaults.of(service, learnsPaths));
		application.addInitializers((context) -> {
			context.getBeanFactory().registerSingleton("topology", topology);
			context.getBeanFactory().registerSingleton("service", service);
		});
		application.run(args);
	}

	private static String argument(String[] args, String prefix, String fallback) {
		for (String arg : args) {
			if (arg.startsWith(prefix)) {
				return arg.substring(prefix.length());
			}
		}
		return fallback;
	}

}
