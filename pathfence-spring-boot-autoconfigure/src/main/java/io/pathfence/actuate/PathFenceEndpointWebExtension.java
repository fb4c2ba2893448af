package io.pathfence.actuate;

import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * The {@code pathfence} endpoint's resize over HTTP: {@code 200} with the path's figures,
 * {@code 400} with the reason when the pool cannot hold the size, {@code 404} for a path
 * that does not exist. The reason is in the body because Boot's error page hides
 * exception messages by default.
 */
@EndpointWebExtension(endpoint = PathFenceEndpoint.class)
public class PathFenceEndpointWebExtension {

	private final PathFenceEndpoint endpoint;

	public PathFenceEndpointWebExtension(PathFenceEndpoint endpoint) {
		this.endpoint = endpoint;
	}

	@WriteOperation
	public WebEndpointResponse<Object> resize(@Selector String path, int permits) {
		PathFenceEndpoint.Resize resize = this.endpoint.attemptResize(path, permits);
		if (!resize.known()) {
			return new WebEndpointResponse<>(new Refused(path, permits, resize.refusal()),
					WebEndpointResponse.STATUS_NOT_FOUND);
		}
		if (resize.refusal() != null) {
			return new WebEndpointResponse<>(new Refused(path, permits, resize.refusal()),
					WebEndpointResponse.STATUS_BAD_REQUEST);
		}
		return new WebEndpointResponse<>(resize.figures(), WebEndpointResponse.STATUS_OK);
	}

	/**
	 * The body of a refused resize.
	 *
	 * @param path the path asked for
	 * @param permits the size asked for
	 * @param reason why it was refused
	 */
	public record Refused(String path, int permits, String reason) {
	}

}
