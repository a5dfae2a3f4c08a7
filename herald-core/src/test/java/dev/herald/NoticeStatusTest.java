package dev.herald;

import static dev.herald.NoticeStatus.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class NoticeStatusTest {
  /** The machine, written out independently of the implementation. */
  private static final Map<NoticeStatus, Set<NoticeStatus>> LEGAL = Map.of(
      PENDING, EnumSet.of(PENDING, IN_FLIGHT, CANCELLED),
      IN_FLIGHT, EnumSet.of(IN_FLIGHT, SUCCEEDED, FAILED, DEAD, AWAITING_CONFIRM, CANCELLED, PENDING),
      FAILED, EnumSet.of(IN_FLIGHT, CANCELLED, PENDING, SUCCEEDED), // a confirmation of an attempt whose answer was lost
      AWAITING_CONFIRM, EnumSet.of(IN_FLIGHT, SUCCEEDED, CANCELLED, PENDING),
      SUCCEEDED, EnumSet.of(PENDING),
      DEAD, EnumSet.of(PENDING, SUCCEEDED),
      CANCELLED, EnumSet.of(PENDING));

  @Test
  void everyPairIsLegalOrIllegalExactlyAsSpecified() {
    UUID id = UUID.randomUUID();
    int checked = 0;
    for (NoticeStatus from : values()) {
      for (NoticeStatus to : values()) {
        boolean legal = LEGAL.get(from).contains(to);
        assertThat(from.canMoveTo(to)).as(from + " -> " + to).isEqualTo(legal);
        if (legal) {
          from.checkMoveTo(to, id);
        } else {
          assertThatThrownBy(() -> from.checkMoveTo(to, id))
              .isInstanceOfSatisfying(IllegalTransitionException.class, e -> {
                assertThat(e.from()).isEqualTo(from);
                assertThat(e.to()).isEqualTo(to);
                assertThat(e.noticeId()).isEqualTo(id);
                assertThat(e.getMessage()).contains(id.toString(), from.name(), to.name());
              });
        }
        checked++;
      }
    }
    assertThat(checked).isEqualTo(49);
  }

  @Test
  void finishedStatusesAreExactlyTheArchivedOnes() {
    assertThat(EnumSet.allOf(NoticeStatus.class).stream().filter(NoticeStatus::isFinished))
        .containsExactlyInAnyOrder(SUCCEEDED, DEAD, CANCELLED);
  }
}
