/**
 * What implementers extend: {@link dev.herald.spi.Channel} for a new way to deliver, {@link
 * dev.herald.spi.NoticeStore} for a new kind of storage. Users of Herald never need this package.
 */
package dev.herald.spi;
