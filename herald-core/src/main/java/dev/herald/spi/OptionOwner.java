package dev.herald.spi;

import dev.herald.NoticeDefinition;
import java.util.List;

/**
 * A part other than the channel that reads options of definitions of any channel, such as a
 * server's alerts ({@code alert.email}, {@code alert.webhook}). It declares them, so that saving a
 * definition refuses a misspelt one, and checks their values; register it with {@code
 * Herald.Builder.optionOwner} (in Spring Boot, as a bean).
 */
public interface OptionOwner {
  /** The part's name, shown in errors ({@code alerts}). */
  String name();

  /**
   * The prefix of every key this part owns ({@code alert.}): a key under it that {@link #options()}
   * does not declare is refused, whatever the channel.
   */
  String namespace();

  /** The options this part reads. */
  List<DefinitionOption> options();

  /**
   * Checks the values of this part's options in a definition being saved (their types are already
   * checked).
   *
   * @throws dev.herald.InvalidInputException naming {@code options.<key>}
   */
  default void validate(NoticeDefinition definition) {}
}
