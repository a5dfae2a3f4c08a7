package dev.herald;

import java.util.List;

/**
 * One page of a query's results.
 *
 * @param items the items, newest first
 * @param offset the offset asked for
 * @param limit the page size asked for
 * @param hasMore whether more items follow this page
 */
public record Page<T>(List<T> items, int offset, int limit, boolean hasMore) {
  public Page {
    items = List.copyOf(items);
  }
}
