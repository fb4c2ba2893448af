package io.pathfence.testsupport.load;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Sends with the JDK's asynchronous HTTP/1.1 client, whose answers complete on a few
 * threads of its own, so thousands of requests out at once cost no thread each. Reads a
 * 503's {@code x-pathfence-path} header and the {@code reason} of its problem body.
 */
public final class JdkHttpSender implements Sender, AutoCloseable {

	private static final Pattern REASON = Pattern.compile("\"reason\"\\s*:\\s*\"([^\"]*)\"");

	private final Duration requestTimeout;

	private final ExecutorService answers;

	private final HttpClient client;

	public JdkHttpSender(Duration connectTimeout, Duration requestTimeout) {
		this.requestTimeout = requestTimeout;
		this.answers = Executors.newFixedThreadPool(4, (task) -> {
			Thread thread = new Thread(task, "load-answers");
			thread.setDaemon(true);
			return thread;
		});
		this.client = HttpClient.newBuilder()
			.version(HttpClient.Version.HTTP_1_1)
			.connectTimeout(connectTimeout)
			.executor(this.answers)
			.build();
	}

	@Override
	public CompletionStage<Answer> send(OpenLoopLoad.Stream stream) {
		HttpRequest request = HttpRequest.newBuilder(stream.uri())
			.timeout(this.requestTimeout)
			.method(stream.method(), HttpRequest.BodyPublishers.noBody())
			.build();
		return this.client.sendAsync(request, HttpResponse.BodyHandlers.ofString())
			.thenApply(JdkHttpSender::answer)
			.exceptionally((failure) -> Answer.NONE);
	}

	private static Answer answer(HttpResponse<String> response) {
		if (response.statusCode() != 503) {
			return Answer.ofStatus(response.statusCode());
		}
		Matcher reason = REASON.matcher(response.body());
		return new Answer(503, response.headers().firstValue("x-pathfence-path").orElse(null),
				reason.find() ? reason.group(1) : null);
	}

	@Override
	public Duration requestTimeout() {
		return this.requestTimeout;
	}

	@Override
	public void close() {
		this.answers.shutdownNow();
	}

}
