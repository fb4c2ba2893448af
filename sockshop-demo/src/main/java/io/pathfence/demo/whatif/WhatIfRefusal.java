package io.pathfence.demo.whatif;

/**
 * Why a what-if run cannot go on, found once it has begun (the target not pinned alone, a
 * load that does not saturate): one line for the user, exit code 2.
 */
final class WhatIfRefusal extends RuntimeException {

	WhatIfRefusal(String message) {
		super(message);
	}

}
