package io.pathfence.demo.service;

import java.util.Arrays;
import java.util.List;

/**
 * The services of the shop, named as in SockShop. Front-end is the gateway; orders is the
 * upstream that the place-order and order-history paths share; the others are its
 * downstreams (and catalogue the front-end's).
 */
public enum Role {

	FRONT_END("front-end"), ORDERS("orders"), CARTS("carts"), CATALOGUE("catalogue"), USER("user"), PAYMENT("payment"),
	SHIPPING("shipping");

	private final String id;

	Role(String id) {
		this.id = id;
	}

	public String id() {
		return this.id;
	}

	/** The services that only do their own work and call nobody. */
	public static List<Role> leaves() {
		return List.of(CARTS, CATALOGUE, USER, PAYMENT, SHIPPING);
	}

	public static Role of(String id) {
		return Arrays.stream(values())
			.filter((role) -> role.id.equals(id))
			.findFirst()
			.orElseThrow(() -> new IllegalArgumentException(
					"Unknown role '" + id + "'; one of " + Arrays.stream(values()).map(Role::id).toList()));
	}

	static Role fromArgs(String[] args) {
		for (String arg : args) {
			if (arg.startsWith("--role=")) {
				return of(arg.substring("--role=".length()));
			}
		}
		throw new IllegalArgumentException("Say which service to start with --role=NAME, one of "
				+ Arrays.stream(values()).map(Role::id).toList() + ", or run the experiment with 'run'");
	}

}
