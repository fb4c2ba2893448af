package io.pathfence.demo.service;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * One service of the shop. {@code --role=NAME} picks which: its controller, and its
 * profile ({@code application-NAME.properties}) with the service's pools and, for orders,
 * its execution paths.
 */
@SpringBootApplication
public class ServiceApplication {

	public static void start(String[] args) {
		Role role = Role.fromArgs(args);
		SpringApplication application = new SpringApplication(ServiceApplication.class);
		application.setAdditionalProfiles(role.id());
		application.run(args);
	}

}
