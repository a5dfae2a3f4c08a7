package dev.herald.channel.kafka;

import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

/** One KRaft broker (Kafka's test kit) for all test classes of this JVM; stopped at exit. */
final class TestKafka {
  private static KafkaClusterTestKit shared;

  private TestKafka() {}

  static synchronized KafkaClusterTestKit shared() throws Exception {
    if (shared == null) {
      KafkaClusterTestKit c = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder()
          .setCombined(true).setNumBrokerNodes(1).setNumControllerNodes(1).build())
          .setConfigProp("auto.create.topics.enable", "false")
          .setConfigProp("offsets.topic.replication.factor", "1")
          .setConfigProp("transaction.state.log.replication.factor", "1")
          .setConfigProp("transaction.state.log.min.isr", "1")
          .setConfigProp("group.initial.rebalance.delay.ms", "0")
          .build();
      c.format();
      c.startup();
      c.waitForReadyBrokers();
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        try {
          c.close();
        } catch (Exception e) {
          // exiting
        }
      }));
      shared = c;
    }
    return shared;
  }
}
