package io.pathfence.web;

import java.io.IOException;
import java.time.Duration;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.core.Ordered;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.ModelAndView;

import io.pathfence.task.PathRejectedException;

/**
 * Answers a {@link PathRejectedException} that reaches Spring MVC (an async handler's
 * task that timed out in its queue, a handler whose submit found the queue full) as the
 * filter answers its own rejections: {@code 503} with {@code Retry-After}, the path and a
 * problem body.
 */
public class PathRejectedExceptionResolver implements HandlerExceptionResolver, Ordered {

	private final Duration retryAfter;

	public PathRejectedExceptionResolver(Duration retryAfter) {
		this.retryAfter = retryAfter;
	}

	@Override
	public ModelAndView resolveException(HttpServletRequest request, HttpServletResponse response, Object handler,
			Exception ex) {
		if (!(ex instanceof PathRejectedException rejected) || response.isCommitted()) {
			return null;
		}
		try {
			ProblemResponse.write(request, response, rejected.getPath(), rejected.getReason(), this.retryAfter);
		}
		catch (IOException failure) {
			return null;
		}
		return new ModelAndView();
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

}
