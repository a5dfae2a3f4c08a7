/**
 * The HTTP webhook channel: {@link dev.herald.channel.http.HttpChannel}, with Standard Webhooks
 * signing, an SSRF guard, and per-endpoint concurrency limits and circuit breakers ({@link
 * dev.herald.channel.http.EndpointStatus}).
 */
package dev.herald.channel.http;
