package io.pathfence.task;

import java.lang.reflect.Method;
import java.util.Set;

import org.springframework.aop.Pointcut;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.ComposablePointcut;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ReflectionUtils;

import io.pathfence.annotation.FencedPath;
import io.pathfence.core.InvalidPathFenceConfigurationException;

/**
 * Advises beans that use {@link FencedPath} with the {@link FencedPathInterceptor}, ahead
 * of any advice they already have. Spring's {@code @Async} advice also puts itself first;
 * this post-processor runs after it, so the path is current before {@code @Async} submits
 * the call. A {@code @FencedPath} naming a path that is not configured fails startup.
 */
public class FencedPathAdvisingPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor {

	private final Set<String> knownPaths;

	public FencedPathAdvisingPostProcessor(Set<String> knownPaths) {
		this.knownPaths = knownPaths;
		Pointcut pointcut = new ComposablePointcut(new AnnotationMatchingPointcut(FencedPath.class, true))
			.union(new AnnotationMatchingPointcut(null, FencedPath.class, true));
		this.advisor = new DefaultPointcutAdvisor(pointcut, new FencedPathInterceptor());
		setBeforeExistingAdvisors(true);
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		Class<?> targetClass = org.springframework.aop.support.AopUtils.getTargetClass(bean);
		if (isEligible(targetClass)) {
			checkPaths(targetClass, beanName);
		}
		return super.postProcessAfterInitialization(bean, beanName);
	}

	private void checkPaths(Class<?> beanClass, String beanName) {
		Class<?> userClass = org.springframework.util.ClassUtils.getUserClass(beanClass);
		FencedPath onType = AnnotatedElementUtils.findMergedAnnotation(userClass, FencedPath.class);
		if (onType != null) {
			check(onType.value(), beanName + " (" + userClass.getName() + ")");
		}
		Set<Method> methods = MethodIntrospector.selectMethods(userClass,
				(ReflectionUtils.MethodFilter) (method) -> AnnotatedElementUtils.hasAnnotation(method,
						FencedPath.class));
		for (Method method : methods) {
			FencedPath annotation = AnnotatedElementUtils.findMergedAnnotation(method, FencedPath.class);
			check(annotation.value(), userClass.getName() + "#" + method.getName());
		}
	}

	private void check(String path, String where) {
		if (!this.knownPaths.contains(path)) {
			throw new InvalidPathFenceConfigurationException("@FencedPath on " + where, path,
					"the name of a configured path: one of " + this.knownPaths);
		}
	}

}
