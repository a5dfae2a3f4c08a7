package dev.herald.spring;

import dev.herald.Herald;

/**
 * Adjusts the {@link Herald.Builder} the starter prepared, for what properties cannot express: a
 * clock, a custom store, handlers written as lambdas, extra definitions or channels. Customizers run
 * last, after properties, definitions, channels, listeners and handler beans were applied, in
 * {@link org.springframework.core.annotation.Order @Order}.
 *
 * <p>A handler registered here is invisible to the start-up checks of handler beans; set {@code
 * herald.verify-handlers=false} if a declared definition targets it.
 */
@FunctionalInterface
public interface HeraldCustomizer {
  void customize(Herald.Builder builder);
}
