package io.pathfence.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Names the execution path whose reservation runs the annotated work: on an
 * {@code @Async} method (or its class), the task is submitted to that path; on a Spring
 * MVC handler method (or controller), inbound requests it handles are admitted through
 * that path's reservation. The name must be one of {@code pathfence.paths}, or startup
 * fails.
 */
@Target({ ElementType.METHOD, ElementType.TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface FencedPath {

	/** The path's name, as configured under {@code pathfence.paths.<name>}. */
	String value();

}
