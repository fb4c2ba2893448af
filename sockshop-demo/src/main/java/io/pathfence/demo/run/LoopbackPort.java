package io.pathfence.demo.run;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/**
 * A loopback port nothing listens on now, for a process started next to bind. The port is
 * released before that process binds it, so whatever binds port 0 in between (a server of
 * the runner's own) may take it: start those first.
 */
public final class LoopbackPort {

	private LoopbackPort() {
	}

	/** A port free on loopback now. */
	public static int free() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

}
