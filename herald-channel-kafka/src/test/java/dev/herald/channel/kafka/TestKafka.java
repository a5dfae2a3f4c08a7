package dev.herald.channel.kafka;

import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One KRaft broker (Kafka's test kit) for all test classes of this JVM, started by the first class
 * that uses it ({@code @ExtendWith(TestKafka.class)}) and closed when JUnit finishes, before the JVM
 * exits (a broker closed by a shutdown hook may halt the JVM with a non-zero code).
 */
final class TestKafka implements BeforeAllCallback {
  private static KafkaClusterTestKit shared;

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    synchronized (TestKafka.class) {
      if (shared == null) {
        shared = start();
        context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL)
            .put(TestKafka.class, (ExtensionContext.Store.CloseableResource) () -> {
              synchronized (TestKafka.class) {
                shared.close();
                shared = null;
              }
            });
      }
    }
  }

  static synchronized KafkaClusterTestKit shared() {
    if (shared == null) {
      throw new IllegalStateException("annotate the test class with @ExtendWith(TestKafka.class)");
    }
    return shared;
  }

  private static KafkaClusterTestKit start() throws Exception {
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
    return c;
  }
}
