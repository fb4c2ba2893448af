package io.pathfence.demo.whatif;

/**
 * Something a what-if run needs failed under way (a pause, a scrape of a service's
 * metrics), so what it measured is void: one line for the user naming what failed, exit
 * code 2, and every service continued and ended as on any exit.
 */
final class WhatIfFailure extends RuntimeException {

	WhatIfFailure(String message, Throwable cause) {
		super(message, cause);
	}

}
