package io.pathfence.task;

import java.lang.reflect.Method;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.springframework.aop.Pointcut;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.ComposablePointcut;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import io.pathfence.annotation.FencedPath;
import io.pathfence.core.InvalidPathFenceConfigurationException;
import io.pathfence.core.PathFence;

/**
 * Advises beans that use {@link FencedPath} with the {@link FencedPathInterceptor}, ahead
 * of any advice they already have. Spring's {@code @Async} advice also puts itself first;
 * this post-processor runs after it, so the path is current before {@code @Async} submits
 * the call. A {@code @FencedPath} naming a path the fence does not have fails startup.
 * <p>
 * The names are checked against the fence itself, so a path added by a customizer counts
 * as much as a configured one. The fence is asked only once every singleton exists: a
 * bean advised here may be created while the fence is (a listener of the fence may depend
 * on it), so the names seen until then wait for the check.
 */
public class FencedPathAdvisingPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor
		implements SmartInitializingSingleton {

	private final Supplier<PathFence> fence;

	/**
	 * Every path a {@code @FencedPath} names, with where, until the fence can be asked.
	 */
	private final Map<String, String> unchecked = new LinkedHashMap<>();

	private final Set<String> named = ConcurrentHashMap.newKeySet();

	private volatile PathFence checkedAgainst;

	/**
	 * @param fence the fence whose path names a {@code @FencedPath} may use; asked once
	 * every singleton exists
	 */
	public FencedPathAdvisingPostProcessor(Supplier<PathFence> fence) {
		this.fence = fence;
		Pointcut pointcut = new ComposablePointcut(new AnnotationMatchingPointcut(FencedPath.class, true))
			.union(new AnnotationMatchingPointcut(null, FencedPath.class, true));
		this.advisor = new DefaultPointcutAdvisor(pointcut, new FencedPathInterceptor());
		setBeforeExistingAdvisors(true);
	}

	/** The paths that {@code @FencedPath} names on the beans advised so far. */
	public Set<String> namedPaths() {
		return Set.copyOf(this.named);
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		Class<?> targetClass = AopUtils.getTargetClass(bean);
		if (isEligible(targetClass)) {
			findPaths(targetClass, beanName);
		}
		return super.postProcessAfterInitialization(bean, beanName);
	}

	@Override
	public void afterSingletonsInstantiated() {
		PathFence fence = this.fence.get();
		Map<String, String> seen;
		synchronized (this.unchecked) {
			this.checkedAgainst = fence;
			seen = new LinkedHashMap<>(this.unchecked);
			this.unchecked.clear();
		}
		seen.forEach((where, path) -> check(fence, path, where));
	}

	private void findPaths(Class<?> beanClass, String beanName) {
		Class<?> userClass = ClassUtils.getUserClass(beanClass);
		FencedPath onType = AnnotatedElementUtils.findMergedAnnotation(userClass, FencedPath.class);
		if (onType != null) {
			named(onType.value(), beanName + " (" + userClass.getName() + ")");
		}
		Set<Method> methods = MethodIntrospector.selectMethods(userClass,
				(ReflectionUtils.MethodFilter) (method) -> AnnotatedElementUtils.hasAnnotation(method,
						FencedPath.class));
		for (Method method : methods) {
			FencedPath annotation = AnnotatedElementUtils.findMergedAnnotation(method, FencedPath.class);
			named(annotation.value(), userClass.getName() + "#" + method.getName());
		}
	}

	private void named(String path, String where) {
		this.named.add(path);
		PathFence fence;
		synchronized (this.unchecked) {
			fence = this.checkedAgainst;
			if (fence == null) {
				this.unchecked.put(where, path);
				return;
			}
		}
		check(fence, path, where);
	}

	private static void check(PathFence fence, String path, String where) {
		if (!fence.hasPath(path)) {
			throw new InvalidPathFenceConfigurationException("@FencedPath on " + where, path,
					"the name of a configured path: one of " + fence.pathNames());
		}
	}

}
