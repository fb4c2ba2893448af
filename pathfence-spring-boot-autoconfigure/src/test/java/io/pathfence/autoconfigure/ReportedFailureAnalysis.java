package io.pathfence.autoconfigure;

import java.io.IOException;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.List;
import java.util.function.Supplier;

import org.springframework.boot.SpringBootExceptionReporter;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalysisReporter;
import org.springframework.boot.test.context.assertj.ApplicationContextAssertProvider;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.io.DefaultResourceLoader;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * The failure analysis Boot itself reports when startup fails. Boot's failure analyzers
 * are tried in their order and the first that answers wins; its analysis goes to every
 * reporter in {@code spring.factories}, this one among them in the tests. So a test sees
 * what the user sees, not what our analyzer would say if it were asked alone.
 */
public class ReportedFailureAnalysis implements FailureAnalysisReporter {

	private static final ThreadLocal<FailureAnalysis> reported = new ThreadLocal<>();

	@Override
	public void report(FailureAnalysis analysis) {
		reported.set(analysis);
	}

	/**
	 * Starts an application that must fail and returns what Boot reported. Which analyzer
	 * answers first can depend on the order of the jars on the classpath, so the
	 * application is started twice: once with Boot's own {@code spring.factories} listed
	 * before ours (as on a service's classpath where the starter comes after Boot), once
	 * after; both reports must agree. A builder runs once, so each start takes a new one.
	 */
	public static FailureAnalysis ofStartup(Supplier<SpringApplicationBuilder> application) {
		ClassLoader classLoader = ReportedFailureAnalysis.class.getClassLoader();
		FailureAnalysis bootFirst = startAndTakeReported(application, new OursLastClassLoader(classLoader));
		FailureAnalysis oursFirst = startAndTakeReported(application, classLoader);
		assertThat(oursFirst.getDescription()).as("the report whatever the classpath order")
			.isEqualTo(bootFirst.getDescription());
		return bootFirst;
	}

	private static FailureAnalysis startAndTakeReported(Supplier<SpringApplicationBuilder> application,
			ClassLoader classLoader) {
		reported.remove();
		SpringApplicationBuilder builder = application.get().resourceLoader(new DefaultResourceLoader(classLoader));
		assertThatException().isThrownBy(builder::run);
		return takeReported();
	}

	/**
	 * Reports the failure of a context runner's context as {@code SpringApplication}
	 * does, through Boot's exception reporters, and returns what they reported.
	 */
	public static FailureAnalysis of(ApplicationContextAssertProvider<?> context) {
		assertThat(context.getStartupFailure()).as("the context's startup failure").isNotNull();
		reported.remove();
		List<SpringBootExceptionReporter> reporters = SpringFactoriesLoader.forDefaultResourceLocation()
			.load(SpringBootExceptionReporter.class, ArgumentResolver.of(ConfigurableApplicationContext.class, null));
		assertThat(reporters).isNotEmpty();
		reporters.forEach((reporter) -> reporter.reportException(context.getStartupFailure()));
		return takeReported();
	}

	/**
	 * Finds resources after every jar's: our own module's {@code spring.factories} comes
	 * from its build folder, whose path names the project.
	 */
	private static final class OursLastClassLoader extends ClassLoader {

		OursLastClassLoader(ClassLoader parent) {
			super(parent);
		}

		@Override
		public Enumeration<URL> getResources(String name) throws IOException {
			List<URL> urls = new ArrayList<>(Collections.list(getParent().getResources(name)));
			urls.sort(Comparator.comparing((url) -> url.getPath().contains("/pathfence-")));
			return Collections.enumeration(urls);
		}

	}

	private static FailureAnalysis takeReported() {
		FailureAnalysis analysis = reported.get();
		reported.remove();
		assertThat(analysis).as("the failure analysis Boot reported").isNotNull();
		return analysis;
	}

}
