package io.pathfence.task;

import java.lang.reflect.Method;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.annotation.AnnotatedElementUtils;

import io.pathfence.annotation.FencedPath;

/**
 * Makes a {@link FencedPath} method's path current while the method is called, so that
 * the {@code @Async} interceptor, which submits the call to the executor, submits it to
 * that path.
 */
final class FencedPathInterceptor implements MethodInterceptor {

	@Override
	public Object invoke(MethodInvocation invocation) throws Throwable {
		String path = pathOf(invocation.getMethod(), invocation.getThis());
		if (path == null) {
			return invocation.proceed();
		}
		String previous = CurrentPath.enter(path);
		try {
			return invocation.proceed();
		}
		finally {
			CurrentPath.restore(previous);
		}
	}

	static String pathOf(Method method, Object target) {
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : method.getDeclaringClass();
		Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
		FencedPath annotation = AnnotatedElementUtils.findMergedAnnotation(specific, FencedPath.class);
		if (annotation == null) {
			annotation = AnnotatedElementUtils.findMergedAnnotation(targetClass, FencedPath.class);
		}
		return (annotation != null) ? annotation.value() : null;
	}

}
