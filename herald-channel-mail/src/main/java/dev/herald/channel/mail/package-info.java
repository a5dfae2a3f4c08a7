/**
 * The e-mail channel: {@link dev.herald.channel.mail.MailChannel} sends each notice as a message
 * over SMTP, its subject and bodies filled from the notice's JSON payload.
 */
package dev.herald.channel.mail;
