package dev.herald.recurring;

import java.time.Instant;
import java.util.UUID;

/** A slot a schedule fired: its time, the notice it made, and when it was fired (later, after downtime). */
public record FiredSlot(Instant slot, UUID noticeId, Instant firedAt) {}
