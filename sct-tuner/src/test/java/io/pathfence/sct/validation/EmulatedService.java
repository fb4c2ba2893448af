package io.pathfence.sct.validation;

import io.pathfence.sct.ConcurrencyRecorder;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntSupplier;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;

/**
 * A real embedded Tomcat on loopback whose one endpoint, {@code /work}, has a known knee:
 * its bottleneck is an emulated resource of {@code units} units (a fair semaphore held
 * for {@code holdMillis}, then {@code ioMillis} of waiting as for a downstream call), so
 * the knee, about units x (hold + io) / hold, does not depend on how busy the machine is;
 * Tomcat's threads, the HTTP stack and the scheduling are real.
 *
 * <p>
 * Optionally it records itself with a {@link ConcurrencyRecorder}, and admits requests
 * through a gate whose limit an adaptive limiter sets (requests over the limit wait in
 * Tomcat's thread until admitted).
 */
public final class EmulatedService implements AutoCloseable {

	/** Told the service time of each request that went through the gate. */
	public interface GateListener {

		void completed(long admittedNanos, long serviceNanos, int inFlight);

	}

	private static final byte[] OK = { 'o', 'k' };

	private final Tomcat tomcat = new Tomcat();

	private final Semaphore units;

	private final long holdNanos;

	private final long ioNanos;

	private final URI uri;

	private final Object gateLock = new Object();

	private int admitted;

	private volatile ConcurrencyRecorder recorder;

	private volatile IntSupplier limit;

	private volatile GateListener listener;

	public EmulatedService(Path baseDir, int units, long holdMillis, long ioMillis) throws LifecycleException {
		this.units = new Semaphore(units, true);
		this.holdNanos = holdMillis * 1_000_000L;
		this.ioNanos = ioMillis * 1_000_000L;
		tomcat.setBaseDir(baseDir.toString());
		Connector connector = new Connector();
		connector.setPort(0);
		connector.setProperty("address", "127.0.0.1");
		connector.setProperty("maxThreads", "160");
		connector.setProperty("maxKeepAliveRequests", "-1");
		connector.setProperty("keepAliveTimeout", "120000");
		tomcat.setConnector(connector);
		Context context = tomcat.addContext("", null);
		Tomcat.addServlet(context, "work", new HttpServlet() {
			private static final long serialVersionUID = 1L;

			@Override
			protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
				handle(resp);
			}
		});
		context.addServletMappingDecoded("/work", "work");
		tomcat.start();
		uri = URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/work");
	}

	public URI uri() {
		return uri;
	}

	/** Records every request from now on with {@code recorder}; null stops recording. */
	public void recorder(ConcurrencyRecorder recorder) {
		this.recorder = recorder;
	}

	/**
	 * Admits requests only while fewer than {@code limit} are in service; null opens the
	 * gate.
	 */
	public void gate(IntSupplier limit, GateListener listener) {
		this.listener = listener;
		this.limit = limit;
		synchronized (gateLock) {
			gateLock.notifyAll();
		}
	}

	private void handle(HttpServletResponse resp) throws IOException {
		IntSupplier gate = limit;
		GateListener told = listener;
		int inFlight = 0;
		if (gate != null) {
			synchronized (gateLock) {
				while (admitted >= gate.getAsInt()) {
					try {
						gateLock.wait(1);
					}
					catch (InterruptedException e) {
						Thread.currentThread().interrupt();
						resp.sendError(503);
						return;
					}
				}
				inFlight = ++admitted;
			}
		}
		ConcurrencyRecorder r = recorder;
		long arrival = System.nanoTime();
		if (r != null) {
			r.arrived(arrival);
		}
		try {
			units.acquireUninterruptibly();
			try {
				pause(holdNanos);
			}
			finally {
				units.release();
			}
			pause(ioNanos);
			resp.setContentType("text/plain");
			resp.setContentLength(2);
			resp.getOutputStream().write(OK);
		}
		finally {
			long now = System.nanoTime();
			if (r != null) {
				r.departed(arrival, now);
			}
			if (gate != null) {
				synchronized (gateLock) {
					admitted--;
					gateLock.notifyAll();
				}
				if (told != null) {
					told.completed(arrival, now - arrival, inFlight);
				}
			}
		}
	}

	static void pause(long nanos) {
		long end = System.nanoTime() + nanos;
		for (long left = nanos; left > 0; left = end - System.nanoTime()) {
			LockSupport.parkNanos(left);
		}
	}

	@Override
	public void close() throws LifecycleException {
		tomcat.stop();
		tomcat.destroy();
	}

}
