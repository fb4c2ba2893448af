package io.pathfence.demo.run;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The kernel's count of connections dropped because a listening socket's accept queue was
 * full ({@code TcpExtListenDrops} in {@code /proc/net/netstat}): the paper's dropped
 * requests, each of which costs its client a SYN retransmission after 1 s. The count is
 * the network namespace's, so read it around a phase in which only the demo's services
 * listen and are called.
 */
final class ListenDrops {

	private static final Path NETSTAT = Path.of("/proc/net/netstat");

	private ListenDrops() {
	}

	/** The count now, or -1 where the kernel does not say. */
	static long read() {
		try {
			return parse(Files.readAllLines(NETSTAT));
		}
		catch (IOException | RuntimeException ex) {
			return -1;
		}
	}

	/** {@code ListenDrops} from the two {@code TcpExt:} lines (names, then values). */
	static long parse(List<String> netstat) {
		String[] names = null;
		for (String line : netstat) {
			if (!line.startsWith("TcpExt:")) {
				continue;
			}
			String[] cells = line.trim().split("\\s+");
			if (names == null) {
				names = cells;
				continue;
			}
			for (int i = 1; i < Math.min(names.length, cells.length); i++) {
				if (names[i].equals("ListenDrops")) {
					return Long.parseLong(cells[i]);
				}
			}
			return -1;
		}
		return -1;
	}

}
