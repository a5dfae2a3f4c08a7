/**
 * The JDBC implementation of {@link dev.herald.spi.NoticeStore}: one store, with what differs
 * between databases behind {@link dev.herald.store.jdbc.Dialect}.
 */
package dev.herald.store.jdbc;
