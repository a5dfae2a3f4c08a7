package dev.herald;

import java.util.List;

/** A notice with its attempt log, oldest attempt first. */
public record NoticeDetail(Notice notice, List<Attempt> attempts) {
  public NoticeDetail {
    attempts = List.copyOf(attempts);
  }
}
