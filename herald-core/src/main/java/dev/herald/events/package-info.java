/**
 * Herald as a webhook platform: {@link dev.herald.events.EventType event types}, {@link
 * dev.herald.events.EventEndpoint endpoints} that subscribe to them, and publishing an event as one
 * notice per subscribed endpoint in the caller's transaction ({@link dev.herald.events.Events}).
 */
package dev.herald.events;
