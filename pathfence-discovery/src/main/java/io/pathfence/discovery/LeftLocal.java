package io.pathfence.discovery;

/**
 * A route that calls downstreams but was left local because a cap was reached.
 *
 * @param route the route
 * @param reason which cap
 */
public record LeftLocal(LearnedRoute route, Reason reason) {

	/** Which cap left a route local. */
	public enum Reason {

		/**
		 * More routes call downstreams than the route cap allows; the least used are left
		 * out.
		 */
		TOO_MANY_ROUTES,

		/**
		 * More downstream sets than the path cap allows; the least used sets are left
		 * out.
		 */
		TOO_MANY_PATHS,

		/**
		 * The route called more distinct downstreams than a route may have (URLs built
		 * from request data, say): it has no set to be fenced by.
		 */
		TOO_MANY_DOWNSTREAMS

	}

	/** One line for a log or a report. */
	public String describe(int maxPaths, int maxRoutes) {
		String what = this.route.route() + " (calls " + PathNames.setName(this.route.downstreams()) + ", "
				+ this.route.requests() + " requests)";
		return switch (this.reason) {
			case TOO_MANY_ROUTES -> what + " left local: more than " + maxRoutes + " routes call downstreams";
			case TOO_MANY_PATHS -> what + " left local: more than " + maxPaths + " sets of downstreams";
			case TOO_MANY_DOWNSTREAMS -> what + " left local: it calls too many distinct downstreams";
		};
	}

}
