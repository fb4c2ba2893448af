package io.pathfence.demo.service;

/**
 * The execution paths that share orders, named as in
 * {@code application-orders.properties} and the experiment's table.
 */
public final class Paths {

	/** front-end, orders, payment, shipping: the path whose downstream stalls. */
	public static final String PLACE_ORDER = "place-order";

	/** front-end, orders, user, carts: the other path, which PathFence must keep fast. */
	public static final String ORDER_HISTORY = "order-history";

	/** front-end, orders: answered by orders itself. */
	public static final String LOCAL = "local";

	private Paths() {
	}

}
