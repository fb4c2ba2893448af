package io.pathfence.demo.service;

import java.net.ConnectException;
import java.time.Duration;
import java.util.concurrent.TimeoutException;

import io.netty.channel.ChannelOption;
import io.netty.handler.timeout.ReadTimeoutException;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.client.PrematureCloseException;
import reactor.netty.resources.ConnectionProvider;

import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientRequestException;

/**
 * Non-blocking HTTP/1.1 calls to one downstream service: the event loop sends the request
 * and goes on with other work until the answer arrives. As the paper's asynchronous
 * servers were, it is not capped by a small connection pool: each downstream may have as
 * many connections as calls in flight, and a call never waits for one. Failures become
 * 502 or 504, as with the blocking {@link Downstream}.
 */
public final class ReactiveDownstream {

	/**
	 * Far more connections than a demo ever has calls in flight to one downstream, and no
	 * bound on calls waiting for one, so the pool never decides anything.
	 */
	private static final ConnectionProvider CONNECTIONS = ConnectionProvider.builder("downstreams")
		.maxConnections(10_000)
		.pendingAcquireMaxCount(-1)
		.pendingAcquireTimeout(Duration.ofSeconds(30))
		.build();

	private final WebClient client;

	private final String base;

	public ReactiveDownstream(String baseUrl, Duration answerTimeout) {
		HttpClient http = HttpClient.create(CONNECTIONS)
			.option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 5000)
			.responseTimeout(answerTimeout);
		this.client = WebClient.builder().clientConnector(new ReactorClientHttpConnector(http)).build();
		this.base = baseUrl;
	}

	public Mono<ResponseEntity<String>> send(String method, String path, String executionPath) {
		WebClient.RequestBodySpec request = this.client.method(HttpMethod.valueOf(method))
			.uri(this.base + path)
			.header(DemoHeaders.PATH, executionPath);
		WebClient.RequestHeadersSpec<?> ready = method.equals("GET") ? request
				: request.header("Content-Type", "application/json").bodyValue("{}");
		return ready
			.exchangeToMono((response) -> response.bodyToMono(String.class)
				.defaultIfEmpty("")
				.map((body) -> ResponseEntity.status(response.statusCode()).body(body)))
			.onErrorResume(this::failure);
	}

	private Mono<ResponseEntity<String>> failure(Throwable failure) {
		Throwable cause = (failure instanceof WebClientRequestException && failure.getCause() != null)
				? failure.getCause() : failure;
		if (cause instanceof ReadTimeoutException || cause instanceof TimeoutException
				|| cause instanceof io.netty.channel.ConnectTimeoutException) {
			return Mono.just(ResponseEntity.status(HttpStatus.GATEWAY_TIMEOUT).body("timeout calling " + this.base));
		}
		if (cause instanceof ConnectException || cause instanceof PrematureCloseException
				|| cause instanceof java.io.IOException) {
			return Mono
				.just(ResponseEntity.status(HttpStatus.BAD_GATEWAY).body("cannot reach " + this.base + ": " + cause));
		}
		return Mono.just(ResponseEntity.status(HttpStatus.BAD_GATEWAY).body("call failed: " + cause));
	}

}
