package dev.herald.channel.kafka;

import dev.herald.DeliveryResult;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.RetriableException;

/**
 * What a failed send means. The producer already retried retriable errors until its delivery
 * timeout; Herald retries them again on the definition's schedule. Errors no retry can cure
 * (record too large, not authorized, invalid topic) fail the notice for good.
 */
final class KafkaOutcome {
  private KafkaOutcome() {}

  static DeliveryResult of(Throwable e, String topic) {
    String what = e.getClass().getSimpleName() + ": " + e.getMessage();
    if (e instanceof RecordTooLargeException || e instanceof AuthorizationException
        || e instanceof InvalidTopicException || e instanceof AuthenticationException) {
      return DeliveryResult.fail("Kafka refused the record for topic '" + topic + "' for good: " + what);
    }
    if (e instanceof RetriableException) {
      return DeliveryResult.retry("Kafka could not take the record for topic '" + topic + "' yet: " + what);
    }
    if (e instanceof ApiException) {
      return DeliveryResult.fail("Kafka refused the record for topic '" + topic + "' for good: " + what);
    }
    return DeliveryResult.retry("Kafka send to topic '" + topic + "' failed: " + what);
  }
}
