package io.pathfence.whatif.profile;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Two services for the profiler's test, one Spring Boot application in two roles: the
 * front's {@code /order} calls the payment's {@code /pay} twice, and {@code /pay} spends
 * {@code pay.cpu-ms} of CPU. Both export Micrometer's metrics at
 * {@code /actuator/prometheus}.
 */
@SpringBootApplication(proxyBeanMethods = false)
public class ProfiledShop {

	public static void main(String[] args) {
		SpringApplication.run(ProfiledShop.class, args);
	}

	@RestController
	static class Endpoints {

		private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

		private final HttpClient http = HttpClient.newHttpClient();

		@Value("${payment.url:}")
		private String payment;

		@Value("${pay.cpu-ms:0}")
		private long payCpuMillis;

		@GetMapping("/order")
		ResponseEntity<String> order() throws IOException, InterruptedException {
			for (int call = 0; call < 2; call++) {
				HttpResponse<String> paid = this.http.send(
						HttpRequest.newBuilder(URI.create(this.payment + "/pay")).build(),
						HttpResponse.BodyHandlers.ofString());
				if (paid.statusCode() != 200) {
					return ResponseEntity.status(502).body("payment answered " + paid.statusCode());
				}
			}
			return ResponseEntity.ok("ordered");
		}

		@GetMapping("/pay")
		String pay() {
			long until = THREADS.getCurrentThreadCpuTime() + this.payCpuMillis * 1_000_000;
			long spin = 0;
			while (THREADS.getCurrentThreadCpuTime() < until) {
				spin++;
			}
			return "paid " + spin;
		}

	}

}
