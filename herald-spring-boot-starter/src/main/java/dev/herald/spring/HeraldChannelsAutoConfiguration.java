package dev.herald.spring;

import dev.herald.Herald;
import dev.herald.InvalidInputException;
import dev.herald.channel.amqp.AmqpChannel;
import dev.herald.channel.http.HttpChannel;
import dev.herald.channel.kafka.KafkaChannel;
import dev.herald.channel.mail.MailChannel;
import dev.herald.channel.mail.StartTls;
import java.util.Locale;
import java.util.Map;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
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
 * The webhook, broker and e-mail channels, each configured when its module is on the class path and
 * its settings are present: the {@code http} channel always ({@code herald.http.*} tunes it, {@code
 * herald.http.enabled=false} turns it off), {@code herald.mail.host}, {@code herald.amqp.brokers.<name>},
 * {@code herald.kafka.bootstrap-servers}. Each backs off when the application defines its own channel bean
 * of that type. The channels are {@link dev.herald.spi.Channel} beans, which {@link
 * HeraldAutoConfiguration} hands to Herald; Herald closes them when it stops.
 */
@AutoConfiguration(before = HeraldAutoConfiguration.class)
@ConditionalOnClass(Herald.class)
@ConditionalOnBooleanProperty(name = "herald.enabled", matchIfMissing = true)
public class HeraldChannelsAutoConfiguration {

  /** {@code herald.http.*}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "dev.herald.channel.http.HttpChannel")
  @ConditionalOnBooleanProperty(name = "herald.http.enabled", matchIfMissing = true)
  static class Http {
    /** Backs off for the application's own, as a bean of the type or named httpChannel (herald-server's). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingBean(value = HttpChannel.class, name = "httpChannel")
    @EnableConfigurationProperties(HttpChannelProperties.class)
    static class Configured {
      @Bean(destroyMethod = "")
      HttpChannel heraldHttpChannel(HttpChannelProperties p) {
        return configured("herald.http", () -> p.channelBuilder().build());
      }
    }
  }

  /** {@code herald.mail.*}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "dev.herald.channel.mail.MailChannel")
  @ConditionalOnProperty(prefix = "herald.mail", name = "host")
  @EnableConfigurationProperties(MailChannelProperties.class)
  static class Mail {
    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean(MailChannel.class)
    MailChannel heraldMailChannel(MailChannelProperties p) {
      return configured("herald.mail", () -> {
        MailChannel.Builder b = MailChannel.builder()
            .host(p.getHost()).port(p.getPort())
            .startTls(startTls(p.getStartTls()))
            .implicitTls(p.isImplicitTls())
            .connectTimeout(p.getConnectTimeout()).timeout(p.getTimeout())
            .maxConnections(p.getMaxConnections());
        if (p.getUsername() != null || p.getPassword() != null) {
          b.credentials(p.getUsername(), p.getPassword());
        }
        if (p.getFrom() != null) {
          b.from(p.getFrom());
        }
        if (p.getTrustHosts() != null) {
          b.trustHosts(p.getTrustHosts());
        }
        return b.build();
      });
    }

    private static StartTls startTls(String text) {
      try {
        return StartTls.valueOf(text.strip().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException | NullPointerException e) {
        throw new InvalidInputException("startTls", "must be disabled, optional or required, was '" + text + "'");
      }
    }
  }

  /** {@code herald.amqp.*}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "dev.herald.channel.amqp.AmqpChannel")
  @Conditional(AmqpBrokersSet.class)
  @EnableConfigurationProperties(AmqpChannelProperties.class)
  static class Amqp {
    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean(AmqpChannel.class)
    AmqpChannel heraldAmqpChannel(AmqpChannelProperties p) {
      return configured("herald.amqp", () -> {
        AmqpChannel.Builder b = AmqpChannel.builder()
            .confirmTimeout(p.getConfirmTimeout())
            .connectTimeout(p.getConnectTimeout())
            .reconnectDelay(p.getReconnectDelay())
            .maxInFlightPerBroker(p.getMaxInFlightPerBroker())
            .maxInFlightPerExchange(p.getMaxInFlightPerExchange());
        p.getBrokers().forEach(b::broker);
        return b.build();
      });
    }
  }

  /** {@code herald.kafka.*}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "dev.herald.channel.kafka.KafkaChannel")
  @ConditionalOnProperty(prefix = "herald.kafka", name = "bootstrap-servers")
  @EnableConfigurationProperties(KafkaChannelProperties.class)
  static class Kafka {
    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean(KafkaChannel.class)
    KafkaChannel heraldKafkaChannel(KafkaChannelProperties p) {
      return configured("herald.kafka", () -> {
        KafkaChannel.Builder b = KafkaChannel.builder()
            .bootstrapServers(p.getBootstrapServers())
            .deliveryTimeout(p.getDeliveryTimeout())
            .maxBlock(p.getMaxBlock());
        p.getProperties().forEach(b::property);
        return b.build();
      });
    }
  }

  /** True when at least one {@code herald.amqp.brokers.<name>} is set. */
  static final class AmqpBrokersSet extends SpringBootCondition {
    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
      boolean set = Binder.get(context.getEnvironment())
          .bind("herald.amqp.brokers", Bindable.mapOf(String.class, String.class))
          .map(Map::isEmpty).map(empty -> !empty).orElse(false);
      return set ? ConditionOutcome.match("herald.amqp.brokers is set")
          : ConditionOutcome.noMatch("herald.amqp.brokers is not set");
    }
  }

  /** Turns a channel builder's refusal into a start-up failure naming the property. */
  private static <T> T configured(String prefix, java.util.function.Supplier<T> build) {
    try {
      return build.get();
    } catch (InvalidInputException e) {
      String property = prefix + "." + kebab(e.field());
      throw new HeraldConfigurationException(property, e.reason(), "Fix " + property + ".", e);
    }
  }

  private static String kebab(String field) {
    return field.replaceAll("([a-z])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
  }
}
