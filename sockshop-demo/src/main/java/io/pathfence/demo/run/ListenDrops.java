package io.pathfence.demo.run;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The connections the kernel dropped because one of the experiment's listening sockets
 * had a full accept queue: the paper's dropped requests, each of which costs its client a
 * SYN retransmission after 1 s. Read per socket, from the packets each listening socket
 * dropped ({@code d} in {@code ss -m}'s {@code skmem}), summed over the experiment's own
 * ports, so no other listener on the machine adds to it. The kernel raises a socket's
 * count at every {@code TcpExtListenDrops}, and once more for a handshake's last ACK
 * dropped at a full queue, so it reads a little above the namespace's counter. A socket's
 * count lasts as long as the socket: read it around a phase in which no service is
 * restarted.
 */
final class ListenDrops {

	private static final Pattern DROPS = Pattern.compile("\\bd(\\d+)\\)");

	private ListenDrops() {
	}

	/**
	 * The drops counted so far by the listening sockets on these ports, or -1 if unknown.
	 */
	static long read(Set<Integer> ports) {
		try {
			Process ss = new ProcessBuilder("ss", "-H", "-t", "-l", "-n", "-m").redirectErrorStream(true).start();
			String output = new String(ss.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			if (!ss.waitFor(5, TimeUnit.SECONDS) || ss.exitValue() != 0) {
				return -1;
			}
			return parse(output.lines().toList(), ports);
		}
		catch (IOException | RuntimeException ex) {
			return -1;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return -1;
		}
	}

	/**
	 * The sum of the {@code d} counts of the listening sockets on these ports in the
	 * output of {@code ss -Htlnm}: a socket's line (state, Recv-Q, Send-Q, local address)
	 * followed by its {@code skmem:(...)} line; -1 if a port is not listed or a socket's
	 * count is missing.
	 */
	static long parse(List<String> ss, Set<Integer> ports) {
		long drops = 0;
		List<Integer> seen = new ArrayList<>();
		Integer port = null;
		for (String line : ss) {
			String trimmed = line.trim();
			if (trimmed.startsWith("LISTEN")) {
				String[] cells = trimmed.split("\\s+");
				port = (cells.length > 3) ? portOf(cells[3]) : null;
				continue;
			}
			if (port == null || !trimmed.startsWith("skmem:") || !ports.contains(port)) {
				continue;
			}
			Matcher count = DROPS.matcher(trimmed);
			if (!count.find()) {
				return -1;
			}
			drops += Long.parseLong(count.group(1));
			seen.add(port);
			port = null;
		}
		return seen.containsAll(ports) ? drops : -1;
	}

	private static Integer portOf(String address) {
		try {
			return Integer.valueOf(address.substring(address.lastIndexOf(':') + 1));
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}

}
