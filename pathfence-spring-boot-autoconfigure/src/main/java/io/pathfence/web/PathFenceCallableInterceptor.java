package io.pathfence.web;

import java.util.concurrent.Callable;

import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.context.request.async.CallableProcessingInterceptor;

import io.pathfence.task.PathFenceTaskExecutor;
import io.pathfence.task.PathRejectedException;

/**
 * Tells the client of an async handler ({@code Callable}, {@code WebAsyncTask}) that its
 * task waited past its path's queue timeout, at once: Spring MVC submits the task and
 * never reads its future, so without this the request would wait for the async request
 * timeout and get a {@code 503} that names no path. Spring MVC's task is marked to report
 * its timeout by running (no other task submitted on the thread meanwhile takes the
 * mark); run so, this interceptor throws the rejection before the handler's callable, and
 * Spring MVC dispatches it as the request's result, which
 * {@link PathRejectedExceptionResolver} answers like the filter's own rejections.
 */
public class PathFenceCallableInterceptor implements CallableProcessingInterceptor {

	@Override
	public <T> void beforeConcurrentHandling(NativeWebRequest request, Callable<T> task) {
		PathFenceTaskExecutor.nextHandlerTaskReportsItsTimeout();
	}

	@Override
	public <T> void preProcess(NativeWebRequest request, Callable<T> task) {
		PathRejectedException timedOut = PathFenceTaskExecutor.timedOut();
		if (timedOut != null) {
			throw timedOut;
		}
	}

}
