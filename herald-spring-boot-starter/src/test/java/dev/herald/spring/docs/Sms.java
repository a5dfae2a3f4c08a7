package dev.herald.spring.docs;

/** A text message to send. */
public record Sms(String phone, String text) {}
