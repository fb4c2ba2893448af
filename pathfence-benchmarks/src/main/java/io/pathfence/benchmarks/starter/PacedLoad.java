package io.pathfence.benchmarks.starter;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * An open-loop load: {@code rate} requests per second spread evenly over
 * {@code connections} keep-alive connections, the routes taken in turn, each request sent
 * at its planned time whatever happened to the one before. A request sent late because
 * the one before it was answered late counts from its planned time, so a slow answer is
 * charged for the requests it held up. A request sent late only because its thread woke
 * late from its sleep counts from when it was sent: that delay is the client's, not the
 * service's.
 */
final class PacedLoad {

	private final double rate;

	private final int connections;

	private final List<byte[]> routes;

	PacedLoad(double rate, int connections, List<String> routes) {
		this.rate = rate;
		this.connections = connections;
		this.routes = routes.stream().map(HttpConnection::get).toList();
	}

	/**
	 * Runs the load on every port at once, each on its own connections, from the same
	 * instant plus that port's offset, so that the sends to the services interleave and
	 * they meet the same state of the machine. Returns each port's figures, in order.
	 */
	List<Measure> runTogether(List<Integer> ports, List<Duration> offsets, Duration length)
			throws InterruptedException {
		long start = System.nanoTime() + Duration.ofMillis(50).toNanos();
		List<List<Sender>> senders = new ArrayList<>();
		for (int p = 0; p < ports.size(); p++) {
			List<Sender> ofPort = new ArrayList<>();
			for (int i = 0; i < this.connections; i++) {
				Sender sender = new Sender(ports.get(p), i, start + offsets.get(p).toNanos(), start + length.toNanos());
				sender.start();
				ofPort.add(sender);
			}
			senders.add(ofPort);
		}
		List<Measure> measures = new ArrayList<>();
		for (List<Sender> ofPort : senders) {
			for (Sender sender : ofPort) {
				sender.join();
			}
			measures.add(measure(ofPort, length));
		}
		return measures;
	}

	private static Measure measure(List<Sender> senders, Duration length) {
		int count = senders.stream().mapToInt((s) -> s.count).sum();
		long[] all = new long[count];
		int at = 0;
		long errors = 0;
		for (Sender sender : senders) {
			System.arraycopy(sender.latencies, 0, all, at, sender.count);
			at += sender.count;
			errors += sender.errors;
		}
		Arrays.sort(all);
		return new Measure(count / (length.toNanos() / 1e9), quantile(all, 0.50) / 1e3, quantile(all, 0.99) / 1e3, 0,
				count, errors);
	}

	private static double quantile(long[] sorted, double q) {
		if (sorted.length == 0) {
			return Double.NaN;
		}
		return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)];
	}

	/**
	 * One connection's sends: its share of the rate, phased so the connections
	 * interleave.
	 */
	private final class Sender extends Thread {

		private final int port;

		private final int index;

		private final long first;

		private final long end;

		private final long interval;

		private final long[] latencies;

		private int count;

		private long errors;

		Sender(int port, int index, long start, long end) {
			super("paced-" + port + "-" + index);
			this.port = port;
			this.index = index;
			this.interval = (long) (PacedLoad.this.connections * 1e9 / PacedLoad.this.rate);
			this.first = start + this.interval * index / PacedLoad.this.connections;
			this.end = end;
			this.latencies = new long[(int) ((end - start) / this.interval) + 2];
		}

		@Override
		public void run() {
			HttpConnection connection = null;
			try {
				connection = new HttpConnection(this.port);
				for (long n = 0;; n++) {
					long planned = this.first + n * this.interval;
					if (planned >= this.end) {
						break;
					}
					long from = planned;
					if (System.nanoTime() < planned) {
						sleepUntil(planned);
						from = System.nanoTime();
					}
					byte[] request = PacedLoad.this.routes.get((int) ((this.index + n) % PacedLoad.this.routes.size()));
					try {
						int status = connection.send(request);
						long latency = System.nanoTime() - from;
						if (status == 200) {
							this.latencies[this.count++] = latency;
						}
						else {
							this.errors++;
						}
						if (connection.closing()) {
							// Reconnecting now, before the next planned send, keeps the
							// connection's setup out of the next request's latency.
							connection.close();
							connection = new HttpConnection(this.port);
						}
					}
					catch (IOException ex) {
						this.errors++;
						connection.close();
						connection = new HttpConnection(this.port);
					}
				}
			}
			catch (IOException ex) {
				// The service is gone: what was not sent counts as failed.
				this.errors += Math.max(0, (this.end - System.nanoTime()) / this.interval);
			}
			finally {
				closeQuietly(connection);
			}
		}

		private static void sleepUntil(long deadline) {
			for (long left = deadline - System.nanoTime(); left > 0; left = deadline - System.nanoTime()) {
				LockSupport.parkNanos(left);
			}
		}

		private static void closeQuietly(HttpConnection connection) {
			if (connection != null) {
				try {
					connection.close();
				}
				catch (IOException ex) {
					// Closing a connection to a service that is gone.
				}
			}
		}

	}

}
