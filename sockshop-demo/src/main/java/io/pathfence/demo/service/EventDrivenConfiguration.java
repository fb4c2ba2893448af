package io.pathfence.demo.service;

import io.netty.channel.ChannelOption;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.pathfence.demo.topology.Service;
import io.pathfence.demo.topology.Tuning;

/**
 * What an event-driven service (the {@code async} mode: WebFlux on Netty) needs besides
 * its routes: the SCT-sized worker pool, and the kernel's accept queue of the topology
 * (the one limit of a synchronous server's pools that an event-driven one keeps: Netty
 * holds as many connections as arrive, on no thread each).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
class EventDrivenConfiguration {

	@Bean(destroyMethod = "close")
	WorkerPool workerPool(Service service, @Value("${demo.workers.initial:2}") int initial,
			@Value("${demo.workers.max:16}") int max) {
		Tuning tuning = (service.fence() != null) ? service.fence().tuning() : Tuning.DEFAULTS;
		return new WorkerPool(initial, max, tuning);
	}

	@Bean
	NettyServerCustomizer acceptQueue(Service service) {
		return (server) -> server.option(ChannelOption.SO_BACKLOG, service.pools().acceptCount());
	}

}
