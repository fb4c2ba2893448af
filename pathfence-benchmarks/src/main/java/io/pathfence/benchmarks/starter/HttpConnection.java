package io.pathfence.benchmarks.starter;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * One keep-alive HTTP/1.1 connection to the service on loopback, sending GETs one at a
 * time. Deliberately minimal (no pooling, no redirects, no chunked bodies): the paced
 * load's client should cost as little, and vary as little, as a client can.
 */
final class HttpConnection implements Closeable {

	private final Socket socket;

	private final InputStream in;

	private final OutputStream out;

	private final ByteArrayOutputStream line = new ByteArrayOutputStream(128);

	/**
	 * Whether the last response said the server closes the connection (Tomcat does so
	 * after {@code max-keep-alive-requests}, 100 by default).
	 */
	private boolean closing;

	HttpConnection(int port) throws IOException {
		this.socket = new Socket(InetAddress.getLoopbackAddress(), port);
		this.socket.setTcpNoDelay(true);
		this.in = new BufferedInputStream(this.socket.getInputStream(), 8192);
		this.out = this.socket.getOutputStream();
	}

	/** The bytes of a GET of {@code path}, built once per route. */
	static byte[] get(String path) {
		return ("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
	}

	/** Sends a request built by {@link #get} and reads its whole response; its status. */
	int send(byte[] request) throws IOException {
		this.out.write(request);
		this.out.flush();
		String statusLine = readLine();
		if (!statusLine.startsWith("HTTP/1.1 ") || statusLine.length() < 12) {
			throw new IOException("not an HTTP/1.1 status line: " + statusLine);
		}
		int status = Integer.parseInt(statusLine.substring(9, 12));
		long length = -1;
		this.closing = false;
		for (String header = readLine(); !header.isEmpty(); header = readLine()) {
			int colon = header.indexOf(':');
			if (colon > 0 && header.regionMatches(true, 0, "Content-Length", 0, colon)) {
				length = Long.parseLong(header.substring(colon + 1).trim());
			}
			else if (colon > 0 && header.regionMatches(true, 0, "Connection", 0, colon)) {
				this.closing = header.substring(colon + 1).trim().equalsIgnoreCase("close");
			}
			else if (colon > 0 && header.regionMatches(true, 0, "Transfer-Encoding", 0, colon)) {
				throw new IOException("a chunked response: this client reads only bodies with a Content-Length");
			}
		}
		if (length < 0) {
			throw new IOException("a response without Content-Length");
		}
		// Throws EOFException if the connection closes within the body.
		this.in.skipNBytes(length);
		return status;
	}

	/** Whether the server closes this connection after the response just read. */
	boolean closing() {
		return this.closing;
	}

	private String readLine() throws IOException {
		this.line.reset();
		int b;
		while ((b = this.in.read()) != '\n') {
			if (b < 0) {
				throw new IOException("the connection closed");
			}
			if (b != '\r') {
				this.line.write(b);
			}
		}
		return this.line.toString(StandardCharsets.US_ASCII);
	}

	@Override
	public void close() throws IOException {
		this.socket.close();
	}

}
