/**
 * Internal: the delivery engine. Claims due notices under a lease, holds them in a timer until
 * their time, hands them to channels, and records outcomes in batches. May change in any release;
 * use {@link dev.herald.Herald}.
 */
package dev.herald.engine;
