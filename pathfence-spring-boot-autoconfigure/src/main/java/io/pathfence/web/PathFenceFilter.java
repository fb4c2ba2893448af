package io.pathfence.web;

import java.io.IOException;
import java.time.Duration;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.pathfence.core.Admission;
import io.pathfence.core.PathFence;
import io.pathfence.core.RejectionReason;
import io.pathfence.core.Ticket;
import io.pathfence.core.Waiter;
import io.pathfence.task.CurrentPath;
import io.pathfence.task.PathFenceTaskExecutor;

/**
 * Admits each inbound request through its path's reservation. A request whose path has a
 * free permit goes on at once on its container thread. One that must wait is suspended
 * with the Servlet async API, so it waits in its path's queue without holding a container
 * thread, and is dispatched again once its permit is granted. A full queue, or a wait
 * past the path's queue timeout, is answered at once with {@code 503}.
 * <p>
 * The permit is held while the container thread works on the request and released when
 * that thread leaves this filter: a handler that goes async itself no longer holds a
 * thread, so it no longer holds a permit.
 */
public class PathFenceFilter implements Filter {

	private static final Log logger = LogFactory.getLog(PathFenceFilter.class);

	/**
	 * The request attribute a request turned away by the fence carries: the name of its
	 * path. Such a request never reached its handler, so it says nothing of what the
	 * handler calls.
	 */
	public static final String REJECTED_ATTRIBUTE = PathFenceFilter.class.getName() + ".REJECTED";

	/**
	 * The request attribute a request that waited for its permit carries. It runs on a
	 * later dispatch, where the inbound observation is no longer the current one, so the
	 * calls it makes are not seen as its own.
	 */
	public static final String PARKED_ATTRIBUTE = PathFenceFilter.class.getName() + ".PARKED";

	static final String GRANTED_TICKET = PathFenceFilter.class.getName() + ".GRANTED_TICKET";

	/**
	 * Extra time the container's own async timeout leaves our timer, which should always
	 * fire first.
	 */
	private static final long CONTAINER_TIMEOUT_MARGIN_MILLIS = 10_000;

	private final PathFence fence;

	private final RequestClassifier classifier;

	private final Duration retryAfter;

	private final RejectionRoute rejectionRoute;

	public PathFenceFilter(PathFence fence, RequestClassifier classifier, Duration retryAfter) {
		this(fence, classifier, retryAfter, RejectionRoute.NONE);
	}

	/**
	 * @param rejectionRoute attributes a rejected request to its handler's route pattern
	 * in {@code http.server.requests}
	 */
	public PathFenceFilter(PathFence fence, RequestClassifier classifier, Duration retryAfter,
			RejectionRoute rejectionRoute) {
		this.fence = fence;
		this.classifier = classifier;
		this.retryAfter = retryAfter;
		this.rejectionRoute = rejectionRoute;
	}

	@Override
	public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
			throws IOException, ServletException {
		HttpServletRequest request = (HttpServletRequest) req;
		HttpServletResponse response = (HttpServletResponse) res;
		DispatcherType dispatcherType = request.getDispatcherType();
		if (dispatcherType == DispatcherType.ASYNC && request.getAttribute(GRANTED_TICKET) instanceof Ticket ticket) {
			request.removeAttribute(GRANTED_TICKET);
			runOnPermit(ticket, request, response, chain);
			return;
		}
		if (dispatcherType != DispatcherType.REQUEST) {
			chain.doFilter(request, response);
			return;
		}
		String path = this.classifier.classify(request);
		if (path.equals(RequestClassifier.EXEMPT)) {
			try {
				chain.doFilter(request, response);
			}
			finally {
				// A mark no task took must not pass to the thread's next request.
				PathFenceTaskExecutor.clearTimeoutReport();
			}
			return;
		}
		ParkedRequest parked = new ParkedRequest(request, path);
		Ticket ticket;
		try {
			ticket = this.fence.acquire(path, parked);
		}
		catch (IllegalArgumentException ex) {
			if (this.fence.hasPath(path)) {
				throw ex;
			}
			ticket = null;
		}
		if (ticket == null || (ticket.admission() == Admission.REJECTED && !this.fence.hasPath(path))) {
			// A learned path retired between classification and here (gone, or refusing
			// every task while it goes): its routes are local again.
			path = PathFence.LOCAL;
			parked = new ParkedRequest(request, path);
			ticket = this.fence.acquire(path, parked);
		}
		switch (ticket.admission()) {
			case GRANTED -> runOnPermit(ticket, request, response, chain);
			case REJECTED -> {
				this.rejectionRoute.attribute(request);
				ProblemResponse.write(request, response, path, RejectionReason.QUEUE_FULL, this.retryAfter);
			}
			case QUEUED -> {
				request.setAttribute(PARKED_ATTRIBUTE, Boolean.TRUE);
				park(parked, ticket, request, response);
			}
		}
	}

	private void runOnPermit(Ticket ticket, HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws IOException, ServletException {
		String previous = CurrentPath.enter(ticket.path());
		try {
			chain.doFilter(request, response);
		}
		finally {
			CurrentPath.restore(previous);
			PathFenceTaskExecutor.clearTimeoutReport();
			ticket.release();
		}
	}

	private void park(ParkedRequest parked, Ticket ticket, HttpServletRequest request, HttpServletResponse response) {
		AsyncContext async;
		try {
			async = request.startAsync(request, response);
		}
		catch (IllegalStateException ex) {
			// A filter or servlet in this chain does not support async: wait is
			// impossible, so do not queue.
			if (!ticket.cancel()) {
				ticket.release();
			}
			throw new IllegalStateException("PathFence needs async support on every filter and servlet of "
					+ request.getRequestURI() + " to queue requests without holding threads", ex);
		}
		long timeoutMillis = this.fence.queueTimeout(ticket.path()).toMillis();
		async.setTimeout((timeoutMillis > 0) ? timeoutMillis + CONTAINER_TIMEOUT_MARGIN_MILLIS : 0);
		parked.waitingOn(ticket);
		async.addListener(parked);
		parked.suspended(async);
	}

	/**
	 * A request waiting for its permit. The fence may grant it or expire it from any
	 * thread, even before the request is suspended; whichever of the two happens last
	 * dispatches or answers it.
	 */
	private final class ParkedRequest implements Waiter, jakarta.servlet.AsyncListener {

		private final HttpServletRequest request;

		private final String path;

		private AsyncContext async;

		private volatile Ticket ticket;

		private boolean granted;

		private boolean expired;

		ParkedRequest(HttpServletRequest request, String path) {
			this.request = request;
			this.path = path;
		}

		void waitingOn(Ticket ticket) {
			this.ticket = ticket;
		}

		void suspended(AsyncContext async) {
			boolean dispatchNow;
			boolean rejectNow;
			synchronized (this) {
				this.async = async;
				dispatchNow = this.granted;
				rejectNow = this.expired;
			}
			if (dispatchNow) {
				dispatch();
			}
			else if (rejectNow) {
				reject(RejectionReason.TIMEOUT);
			}
		}

		@Override
		public void granted(Ticket grantedTicket) {
			synchronized (this) {
				this.ticket = grantedTicket;
				this.granted = true;
				if (this.async == null) {
					return;
				}
			}
			dispatch();
		}

		@Override
		public void expired(Ticket expiredTicket) {
			synchronized (this) {
				this.ticket = expiredTicket;
				this.expired = true;
				if (this.async == null) {
					return;
				}
			}
			reject(RejectionReason.TIMEOUT);
		}

		private void dispatch() {
			try {
				this.request.setAttribute(GRANTED_TICKET, this.ticket);
				this.async.dispatch();
			}
			catch (IllegalStateException ex) {
				// The request ended (the client went away, the container timed it out)
				// while it waited, and the container may have recycled it already: its
				// permit goes back at once, to the next waiter.
				logger.debug("A request of path '" + this.path + "' ended before its permit was granted", ex);
				this.ticket.release();
			}
		}

		/**
		 * Answers 503, on the fence's expiry thread of this path. The problem body is a
		 * few hundred bytes and stays in the response buffer; completing the request
		 * hands sending it to a container thread, so a client that does not read cannot
		 * hold up the path's later timeouts.
		 */
		void reject(RejectionReason reason) {
			AsyncContext context;
			synchronized (this) {
				context = this.async;
			}
			try {
				PathFenceFilter.this.rejectionRoute.attribute(this.request);
				ProblemResponse.write(this.request, (HttpServletResponse) context.getResponse(), this.path, reason,
						PathFenceFilter.this.retryAfter, false);
			}
			catch (IOException | IllegalStateException ex) {
				logger.debug("Could not answer a rejected request of path '" + this.path + "'", ex);
			}
			finally {
				completeQuietly(context);
			}
		}

		@Override
		public void onTimeout(jakarta.servlet.AsyncEvent event) {
			// Only reached if the fence's timer did not fire first; the request must not
			// hang either way.
			if (this.ticket.cancel()) {
				reject(RejectionReason.TIMEOUT);
			}
		}

		@Override
		public void onError(jakarta.servlet.AsyncEvent event) {
			// The client is gone: stop waiting. A permit granted meanwhile is released on
			// completion.
			this.ticket.cancel();
		}

		@Override
		public void onComplete(jakarta.servlet.AsyncEvent event) {
			// Whatever ended the request, it holds no permit and no place in the queue
			// afterwards.
			this.ticket.cancel();
			this.ticket.release();
		}

		@Override
		public void onStartAsync(jakarta.servlet.AsyncEvent event) {
		}

		private void completeQuietly(AsyncContext context) {
			try {
				context.complete();
			}
			catch (IllegalStateException ex) {
				// Already completed by the container.
			}
		}

	}

}
