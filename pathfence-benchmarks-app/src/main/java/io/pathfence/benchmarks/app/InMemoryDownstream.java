package io.pathfence.benchmarks.app;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.client.AbstractClientHttpRequest;
import org.springframework.http.client.ClientHttpRequest;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.http.client.ClientHttpResponse;

/**
 * A downstream that answers in memory: the client's whole stack runs (Boot's
 * {@code RestClient}, its observation, the message converters) but no socket, so that a
 * route calling a downstream costs about what the route itself costs and the benchmark
 * still sees what discovery adds to it.
 */
final class InMemoryDownstream implements ClientHttpRequestFactory {

	private static final byte[] BODY = "ok".getBytes(StandardCharsets.UTF_8);

	@Override
	public ClientHttpRequest createRequest(URI uri, HttpMethod method) {
		return new AbstractClientHttpRequest() {

			@Override
			public HttpMethod getMethod() {
				return method;
			}

			@Override
			public URI getURI() {
				return uri;
			}

			@Override
			protected OutputStream getBodyInternal(HttpHeaders headers) {
				return OutputStream.nullOutputStream();
			}

			@Override
			protected ClientHttpResponse executeInternal(HttpHeaders headers) {
				return new Answer();
			}

		};
	}

	private static final class Answer implements ClientHttpResponse {

		private final HttpHeaders headers = new HttpHeaders();

		Answer() {
			this.headers.setContentType(MediaType.TEXT_PLAIN);
			this.headers.setContentLength(BODY.length);
		}

		@Override
		public HttpStatusCode getStatusCode() {
			return HttpStatus.OK;
		}

		@Override
		public String getStatusText() {
			return "OK";
		}

		@Override
		public HttpHeaders getHeaders() {
			return this.headers;
		}

		@Override
		public InputStream getBody() {
			return new ByteArrayInputStream(BODY);
		}

		@Override
		public void close() {
		}

	}

}
