package io.pathfence.demo.topology;

/**
 * The requests of one execution path, as the load generator sends them to the gateway.
 *
 * @param path the execution path's name
 * @param method the HTTP method
 * @param route the request path at the gateway
 * @param rate the base rate, requests per second
 * @param bursts whether the bursty trace multiplies this rate (in the paper's runs one
 * path's users vary while the others' stay constant)
 */
public record LoadStream(String path, String method, String route, double rate, boolean bursts) {
}
