package dev.herald.channel.mail;

/** Whether the channel upgrades a plain SMTP connection to TLS with {@code STARTTLS}. */
public enum StartTls {
  /** Never: the conversation stays in clear (only for a relay on the same host or network). */
  DISABLED,
  /** When the server offers it; in clear otherwise. */
  OPTIONAL,
  /** Always: a server that does not offer it gets nothing, and the attempt is retried. */
  REQUIRED
}
