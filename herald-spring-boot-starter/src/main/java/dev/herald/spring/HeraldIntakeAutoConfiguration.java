package dev.herald.spring;

import dev.herald.Herald;
import dev.herald.InvalidInputException;
import dev.herald.channel.amqp.AmqpIntake;
import dev.herald.channel.kafka.KafkaIntake;
import dev.herald.intake.IntakeFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Intake from RabbitMQ queues and Kafka topics, from properties alone: {@code
 * herald.amqp.intakes.<name>.*} and {@code herald.kafka.intakes.<name>.*}, each with its module on the
 * class path. The intakes start once Herald runs ({@link HeraldIntakes}); a bad setting fails start-up
 * naming its property.
 */
@AutoConfiguration(after = HeraldAutoConfiguration.class)
@ConditionalOnClass(Herald.class)
@ConditionalOnBooleanProperty(name = "herald.enabled", matchIfMissing = true)
public class HeraldIntakeAutoConfiguration {

  /** {@code herald.amqp.intakes.*}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "dev.herald.channel.amqp.AmqpIntake")
  @Conditional(AmqpIntakesSet.class)
  @EnableConfigurationProperties(AmqpChannelProperties.class)
  static class Amqp {
    @Bean
    HeraldIntakes heraldAmqpIntakes(Herald herald, AmqpChannelProperties p) {
      return intakes("amqp", p.getIntakes(), (name, prefix, i) -> {
        AmqpIntake.Builder b = AmqpIntake.builder(herald).queue(i.getQueue()).prefetch(i.getPrefetch())
            .pause(i.getPause()).format(format(prefix, i.getDefinition(), i.getFormat()));
        b.uri(uri(prefix, i, p.getBrokers()));
        if (i.getParkingQueue() != null) {
          b.parkingQueue(i.getParkingQueue());
        }
        AmqpIntake intake = b.build();
        return HeraldIntakes.of("amqp-" + name, intake::start, intake::isConsuming, intake::close);
      });
    }

    /** {@code heraldAmqpIntakes/<name>}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    static class Health {
      @Bean
      org.springframework.boot.health.contributor.CompositeHealthContributor heraldAmqpIntakesHealthContributor(
          HeraldIntakes heraldAmqpIntakes) {
        return IntakeHealth.health(heraldAmqpIntakes);
      }
    }

    private static String uri(String prefix, AmqpChannelProperties.Intake i, Map<String, String> brokers) {
      if (i.getUri() != null && i.getBroker() != null) {
        throw new InvalidInputException("uri", "give uri or broker, not both");
      }
      if (i.getBroker() != null) {
        String uri = brokers.get(i.getBroker());
        if (uri == null) {
          throw new InvalidInputException("broker", "'" + i.getBroker() + "' is not one of herald.amqp.brokers "
              + brokers.keySet());
        }
        return uri;
      }
      if (i.getUri() == null) {
        throw new InvalidInputException("uri", "is required (or broker, one of herald.amqp.brokers)");
      }
      return i.getUri();
    }
  }

  /** {@code herald.kafka.intakes.*}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "dev.herald.channel.kafka.KafkaIntake")
  @Conditional(KafkaIntakesSet.class)
  @EnableConfigurationProperties(KafkaChannelProperties.class)
  static class Kafka {
    @Bean
    HeraldIntakes heraldKafkaIntakes(Herald herald, KafkaChannelProperties p) {
      return intakes("kafka", p.getIntakes(), (name, prefix, i) -> {
        String servers = i.getBootstrapServers() != null ? i.getBootstrapServers() : p.getBootstrapServers();
        if (servers == null) {
          throw new InvalidInputException("bootstrapServers", "is required (or herald.kafka.bootstrap-servers)");
        }
        KafkaIntake.Builder b = KafkaIntake.builder(herald).bootstrapServers(servers).topic(i.getTopic())
            .groupId(i.getGroupId() != null ? i.getGroupId() : "herald-intake-" + name).pause(i.getPause())
            .format(format(prefix, i.getDefinition(), i.getFormat()));
        if (i.getParkingTopic() != null) {
          b.parkingTopic(i.getParkingTopic());
        }
        i.getProperties().forEach(b::property);
        KafkaIntake intake = b.build();
        return HeraldIntakes.of("kafka-" + name, intake::start, intake::isRunning, intake::close);
      });
    }

    /** {@code heraldKafkaIntakes/<name>}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    static class Health {
      @Bean
      org.springframework.boot.health.contributor.CompositeHealthContributor heraldKafkaIntakesHealthContributor(
          HeraldIntakes heraldKafkaIntakes) {
        return IntakeHealth.health(heraldKafkaIntakes);
      }
    }
  }

  /** Apart from the auto-configuration so that it loads without Spring Boot's health module. */
  static final class IntakeHealth {
    private IntakeHealth() {}

    /** A component per intake of {@code intakes}, by its name in properties: UP while it consumes. */
    static org.springframework.boot.health.contributor.CompositeHealthContributor health(HeraldIntakes intakes) {
      Map<String, org.springframework.boot.health.contributor.HealthIndicator> each = new java.util.TreeMap<>();
      for (HeraldIntakes.Intake i : intakes.intakes()) {
        each.put(i.name().substring(i.name().indexOf('-') + 1), () -> i.consuming()
            ? org.springframework.boot.health.contributor.Health.up().build()
            : org.springframework.boot.health.contributor.Health.down().withDetail("consuming", false).build());
      }
      return org.springframework.boot.health.contributor.CompositeHealthContributor.fromMap(each);
    }
  }

  /** How a message becomes a notice: the payload of one definition, or an envelope naming it. */
  static IntakeFormat format(String prefix, String definition, String format) {
    if (format != null && !format.isBlank()) {
      String f = format.strip().toLowerCase(Locale.ROOT);
      if (f.equals("envelope") && definition == null) {
        return IntakeFormat.envelope();
      }
      if (f.equals("payload") && definition != null) {
        return IntakeFormat.payload(definition);
      }
      throw new HeraldConfigurationException(prefix + ".format", "must be envelope (without definition), or payload"
          + " with definition set; was '" + format + "'", "Fix " + prefix + ".format.");
    }
    if (definition == null || definition.isBlank()) {
      throw new HeraldConfigurationException(prefix + ".definition", "says nothing of what a message becomes",
          "Set " + prefix + ".definition (each message's body is the payload of a notice of it), or " + prefix
              + ".format=envelope (each message names its definition).");
    }
    return IntakeFormat.payload(definition);
  }

  /** Builds one intake from its properties. */
  interface IntakeMaker<P> {
    /**
     * @param name its name in properties; logs and health call it {@code <kind>-<name>}
     * @param prefix its properties' prefix, {@code herald.<kind>.intakes.<name>}
     */
    HeraldIntakes.Intake make(String name, String prefix, P properties);
  }

  /**
   * The intakes of {@code herald.<kind>.intakes.*}, each made by {@code make}; a setting it refuses
   * fails start-up naming the property.
   */
  private static <P> HeraldIntakes intakes(String kind, Map<String, P> each, IntakeMaker<P> make) {
    List<HeraldIntakes.Intake> out = new ArrayList<>();
    each.forEach((name, i) -> {
      String prefix = "herald." + kind + ".intakes." + name;
      try {
        out.add(make.make(name, prefix, i));
      } catch (InvalidInputException e) {
        String property = prefix + "." + HeraldAutoConfiguration.HeraldFactory.kebab(e.field());
        throw new HeraldConfigurationException(property, e.reason(), "Fix " + property + ".", e);
      }
    });
    return new HeraldIntakes(out);
  }

  /** True when at least one {@code herald.amqp.intakes.<name>} is set. */
  static final class AmqpIntakesSet extends SpringBootCondition {
    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
      return named(context, "herald.amqp.intakes");
    }
  }

  /** True when at least one {@code herald.kafka.intakes.<name>} is set. */
  static final class KafkaIntakesSet extends SpringBootCondition {
    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
      return named(context, "herald.kafka.intakes");
    }
  }

  private static ConditionOutcome named(ConditionContext context, String prefix) {
    boolean set = Binder.get(context.getEnvironment()).bind(prefix, Bindable.mapOf(String.class, Object.class))
        .map(m -> !m.isEmpty()).orElse(false);
    return set ? ConditionOutcome.match(prefix + " is set") : ConditionOutcome.noMatch(prefix + " is not set");
  }
}
