package dev.herald;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * What gauges, health checks and consoles read about the notices as a whole: counts, searches and
 * chart series, answered by the store ({@link Herald#reports()}). Every read runs in its own
 * transaction; a failure is a {@link StoreException}. A {@link NoticeScope} narrows a read to a
 * part of the notices; null reads them all.
 */
public interface NoticeReports {

  /** Per definition, as of {@code now}: see {@link NoticeCounts}. Definitions without any notice are absent. */
  Map<String, NoticeCounts> countByDefinition(Instant now);

  /** DEAD notices that finished at or after {@code since}, counted up to {@code cap}. */
  long countDead(Instant since, int cap);

  /** Live (unfinished) notices of the scope. */
  long countLive(NoticeScope scope);

  /**
   * A page of the notices that match, live and archived, newest first (by creation, then id); one
   * more is looked for, to tell whether another page follows.
   */
  Page<Notice> search(NoticeCriteria criteria, int offset, int limit);

  /** The ids of the first {@code limit} notices {@link #search} would list, in its order. */
  List<UUID> searchIds(NoticeCriteria criteria, int limit);

  /**
   * The ids of archived notices of a definition with {@code status} that finished within [from,
   * to), oldest first, at most {@code limit}.
   */
  List<UUID> finishedIds(String definition, NoticeStatus status, Instant from, Instant to, NoticeScope scope,
      int limit);

  /**
   * Attempts started within [from, to), newest first, at most {@code max}, of notices of {@code
   * definition} (null: all) and {@code scope}.
   */
  List<AttemptSample> attemptSamples(Instant from, Instant to, String definition, NoticeScope scope, int max);

  /**
   * The backlog (see {@link NoticeCounts}) as it was at each instant, from live and archived notices:
   * created and past their fire time by then and not finished by then. Element i is the count at
   * {@code instants.get(i)}.
   */
  long[] backlogAt(List<Instant> instants, String definition, NoticeScope scope);

  /** Which of these notices exist, live or archived. */
  Set<UUID> existing(Collection<UUID> ids);
}
