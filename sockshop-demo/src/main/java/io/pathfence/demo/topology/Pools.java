package io.pathfence.demo.topology;

/**
 * A synchronous service's pools: its worker threads, the connections it keeps open at
 * once, and the kernel's accept queue behind them. Past the accept queue the kernel drops
 * SYNs, which cost the client a retransmission after 1 s.
 *
 * @param threads Tomcat's worker threads
 * @param minSpare the worker threads kept even when idle
 * @param maxConnections the connections Tomcat holds at once, idle keep-alive ones
 * included
 * @param acceptCount the accept queue (listen backlog)
 */
public record Pools(int threads, int minSpare, int maxConnections, int acceptCount) {

	/** Spring Boot's defaults for embedded Tomcat. */
	public static final Pools DEFAULTS = new Pools(200, 10, 8192, 100);

}
