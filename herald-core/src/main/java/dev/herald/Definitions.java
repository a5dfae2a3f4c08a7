package dev.herald;

import java.util.List;
import java.util.Optional;

/** Definitions as data: stored in the database, changed at run time, shared by every node. */
public interface Definitions {
  /**
   * Creates or replaces a definition.
   *
   * @throws InvalidInputException naming {@code channel} or {@code target} if no channel here can deliver it
   */
  NoticeDefinition save(NoticeDefinition definition);

  Optional<NoticeDefinition> find(String name);

  /** All definitions, by name. */
  List<NoticeDefinition> list();

  /** Deletes a definition; its notices still live fail with a clear error when due. Returns false if none. */
  boolean delete(String name);
}
