package dev.herald.spring;

import dev.herald.Herald;
import dev.herald.HeraldListener;
import dev.herald.InvalidInputException;
import dev.herald.NoticeDefinition;
import dev.herald.spi.Channel;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.util.function.SingletonSupplier;
import tools.jackson.databind.json.JsonMapper;

/**
 * Configures Herald in a Spring Boot application: a {@link Herald} on the application's {@link
 * DataSource} (or, without one, on embedded H2 files), started and stopped with the context by
 * {@link HeraldLifecycle}; a {@link NoticePublisher} that joins Spring transactions; handler beans
 * ({@link NoticeHandlerMethod}, {@link HeraldHandler}); definitions from {@code herald.definitions.*}
 * and {@link NoticeDefinition} beans; {@link Channel}, {@link HeraldListener} and {@link
 * HeraldCustomizer} beans; a health indicator when Spring Boot's health support is present. Every
 * bean backs off when the application defines its own.
 */
@AutoConfiguration(afterName = {
    "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
    "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
    "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration"})
@ConditionalOnClass(Herald.class)
@ConditionalOnBooleanProperty(name = "herald.enabled", matchIfMissing = true)
@EnableConfigurationProperties(HeraldProperties.class)
public class HeraldAutoConfiguration {

  /**
   * The engine, built but not started ({@link HeraldLifecycle} starts it once the context is
   * refreshed). Not closed by the bean factory: the lifecycle closes it.
   */
  @Bean(destroyMethod = "")
  @ConditionalOnMissingBean
  public Herald herald(HeraldProperties properties, ObjectProvider<DataSource> dataSource,
      ObjectProvider<HeraldListener> listeners, ObjectProvider<HeraldCustomizer> customizers,
      ObjectProvider<JsonMapper> jsonMapper, ConfigurableListableBeanFactory beanFactory, Environment environment) {
    if (properties.isFailOnUnknownProperties()) {
      UnknownProperties.check(environment, beanFactory);
    }
    return new HeraldFactory(properties, beanFactory, jsonMapperSupplier(jsonMapper))
        .build(dataSource.getIfAvailable(), listeners.orderedStream().toList(), customizers.orderedStream().toList());
  }

  @Bean
  @ConditionalOnMissingBean
  public HeraldLifecycle heraldLifecycle(Herald herald, HeraldProperties properties) {
    return new HeraldLifecycle(herald, properties.isAutoStart());
  }

  /** What application code injects; joins Spring transactions on the data source Herald uses. */
  @Bean
  @ConditionalOnMissingBean
  public NoticePublisher noticePublisher(Herald herald, ObjectProvider<JsonMapper> jsonMapper,
      HeraldProperties properties, ObjectProvider<HeraldLifecycle> lifecycle, ObjectProvider<DataSource> dataSource) {
    // On Herald's own H2 files (no application DataSource) there is no business transaction to join.
    boolean requireTransaction = properties.getPublisher().isRequireTransaction() && dataSource.getIfAvailable() != null;
    return new HeraldNoticePublisher(herald, herald.dataSource(), jsonMapperSupplier(jsonMapper), requireTransaction,
        stopped(lifecycle));
  }

  /** Whether the lifecycle stopped Herald; looked up once, at the first publish (not while the context closes). */
  private static java.util.function.BooleanSupplier stopped(ObjectProvider<HeraldLifecycle> lifecycle) {
    Supplier<HeraldLifecycle> found = SingletonSupplier.of(lifecycle::getIfAvailable);
    return () -> {
      try {
        HeraldLifecycle l = found.get();
        return l != null && l.isStopped();
      } catch (org.springframework.beans.BeansException e) {
        return true; // the context is being destroyed and the lifecycle was never looked up
      }
    };
  }

  /** Application events whose type is marked {@link NoticeEvent} become notices. */
  @Bean
  @ConditionalOnMissingBean
  public NoticeEvents heraldNoticeEvents(ObjectProvider<NoticePublisher> publisher) {
    return new NoticeEvents(publisher);
  }

  private static Supplier<JsonMapper> jsonMapperSupplier(ObjectProvider<JsonMapper> jsonMapper) {
    return SingletonSupplier.of(() -> jsonMapper.getIfUnique(JsonMapper::shared));
  }

  /** Herald's health, only when Spring Boot's health support is on the class path. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
  static class HeraldHealthConfiguration {
    /** Nested, so that its health condition is only read when the health classes exist. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnEnabledHealthIndicator("herald")
    static class Enabled {
      @Bean
      @ConditionalOnMissingBean(name = "heraldHealthIndicator")
      HeraldHealthIndicator heraldHealthIndicator(Herald herald, HeraldProperties properties) {
        return new HeraldHealthIndicator(herald, properties.getHealth());
      }
    }

    /** {@code heraldChannels}: a component per channel ({@code local}, in-process, is always UP). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnEnabledHealthIndicator("heraldChannels")
    static class Channels {
      @Bean
      @ConditionalOnMissingBean(name = "heraldChannelsHealthContributor")
      org.springframework.boot.health.contributor.CompositeHealthContributor heraldChannelsHealthContributor(
          Herald herald, HeraldProperties properties) {
        Map<String, HeraldChannelHealthIndicator> perChannel = new java.util.TreeMap<>();
        for (Channel c : herald.channels()) {
          perChannel.put(c.name(), new HeraldChannelHealthIndicator(herald, c,
              properties.getHealth().getChannelDownAfter(), properties.getHealth().getChannelStatus()));
        }
        return org.springframework.boot.health.contributor.CompositeHealthContributor.fromMap(perChannel);
      }
    }
  }

  /** {@code /actuator/herald}, only with Spring Boot's actuator on the class path and the endpoint available. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint")
  static class HeraldEndpointConfiguration {
    /** Nested, so that the endpoint condition is only read when the actuator classes exist. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnAvailableEndpoint(HeraldEndpoint.class)
    static class Available {
      @Bean
      @ConditionalOnMissingBean
      HeraldEndpoint heraldEndpoint(Herald herald) {
        return new HeraldEndpoint(herald);
      }
    }
  }

  /** Builds the Herald from properties and beans, and checks the handler wiring. */
  static final class HeraldFactory {
    private final HeraldProperties properties;
    private final ConfigurableListableBeanFactory beanFactory;
    private final Supplier<JsonMapper> jsonMapper;

    HeraldFactory(HeraldProperties properties, ConfigurableListableBeanFactory beanFactory,
        Supplier<JsonMapper> jsonMapper) {
      this.properties = properties;
      this.beanFactory = beanFactory;
      this.jsonMapper = jsonMapper;
    }

    Herald build(DataSource dataSource, List<HeraldListener> listeners, List<HeraldCustomizer> customizers) {
      Map<String, HandlerBeans.Found> handlers = HandlerBeans.scan(beanFactory, jsonMapper);
      Map<String, Declared> declared = declaredDefinitions(handlers);
      Map<String, Channel> channels = channelBeans();
      checkChannels(declared, channels, !customizers.isEmpty());
      if (properties.isVerifyHandlers()) {
        checkHandlersExist(declared, handlers);
      }

      Herald.Builder b = Herald.builder();
      if (dataSource != null) {
        if (properties.getH2File() != null) {
          throw new HeraldConfigurationException("herald.h2-file",
              "is set, but the application has a DataSource, which Herald uses so that notices join its transactions",
              "Remove herald.h2-file, or define your own Herald bean.");
        }
        b.dataSource(dataSource);
      } else if (properties.getH2File() != null) {
        b.h2File(properties.getH2File());
      }
      applySettings(b);
      handlers.values().forEach(h -> b.handler(h.name(), h.handler()));
      channels.values().forEach(b::channel);
      beanFactory.getBeansOfType(dev.herald.spi.OptionOwner.class).values().forEach(b::optionOwner);
      listeners.forEach(b::listener);
      for (HeraldCustomizer c : customizers) {
        try {
          c.customize(b);
        } catch (InvalidInputException e) {
          throw new HeraldConfigurationException("HeraldCustomizer " + c.getClass().getName(), e.getMessage(),
              "Fix the customizer; handlers and definitions it adds must not clash with handler beans and properties.", e);
        }
      }

      Herald herald;
      try {
        herald = b.build();
      } catch (InvalidInputException e) {
        throw settingFailure(e);
      }
      try {
        declared.values().forEach(d -> save(herald, d));
        checkHandlersTargeted(herald, handlers);
      } catch (RuntimeException e) {
        herald.close();
        throw e;
      }
      return herald;
    }

    /**
     * Saves a declared definition; the channel's refusal (an unknown channel, a target it refuses, an
     * option it does not know) names the definition's property or bean.
     */
    private static void save(Herald herald, Declared d) {
      try {
        herald.definitions().save(d.definition());
      } catch (InvalidInputException e) {
        String property = d.origin().startsWith("herald.")
            ? d.origin() + DefinitionProperties.propertyOf(e.field(), d.definition())
            : d.origin() + ", field " + e.field();
        throw new HeraldConfigurationException(property, "definition '" + d.definition().name() + "': "
            + e.reason(), "Fix " + property + ".", e);
      }
    }

    // ------------------------------------------------------------------ settings

    private void applySettings(Herald.Builder b) {
      HeraldProperties p = properties;
      set(p.getNodeId(), b::nodeId);
      set(p.getPollInterval(), b::pollInterval);
      set(p.getLookAhead(), b::lookAhead);
      set(p.getNodeTimeout(), b::nodeTimeout);
      set(p.getClaimBatch(), b::claimBatch);
      set(p.getMaxHeld(), b::maxHeld);
      set(p.getMaxConcurrentDeliveries(), b::maxConcurrentDeliveries);
      set(p.getMaxConcurrentPerReceiver(), b::maxConcurrentPerReceiver);
      set(p.getDeliveryTimeout(), b::deliveryTimeout);
      set(p.getWriteBatch(), b::writeBatch);
      set(p.getShutdownTimeout(), b::shutdownTimeout);
      set(p.getHistoryRetention(), b::historyRetention);
      set(p.getHousekeepingInterval(), b::housekeepingInterval);
      set(p.getMaxPayloadBytes(), b::maxPayloadBytes);
      set(p.getCircuitFailureThreshold(), b::circuitFailureThreshold);
      set(p.getCircuitOpenFor(), b::circuitOpenFor);
      if (p.getCircuitSlowCallDuration() != null || p.getCircuitSlowCallRate() != null) {
        dev.herald.SlowCalls d = dev.herald.SlowCalls.DEFAULT;
        b.circuitSlowCalls(p.getCircuitSlowCallDuration() == null ? d.threshold() : p.getCircuitSlowCallDuration(),
            p.getCircuitSlowCallRate() == null ? d.rate() : p.getCircuitSlowCallRate(), d.window(), d.minimumCalls());
      }
      set(p.getOnlyDefinitions(), b::onlyDefinitions);
      set(p.getOnlyShards(), b::onlyShards);
      set(p.getMaxBacklog(), b::maxBacklog);
    }

    private static <T> void set(T value, Consumer<T> setter) {
      if (value != null) {
        setter.accept(value);
      }
    }

    /**
     * A core complaint at build time: about an engine setting (named by the core, shown as its
     * property), or anything else.
     */
    private static HeraldConfigurationException settingFailure(InvalidInputException e) {
      if (!(e instanceof dev.herald.InvalidSettingException s)) {
        return new HeraldConfigurationException("Herald's configuration (properties, beans and HeraldCustomizers)",
            e.getMessage(), "Check the definitions, channels, handlers and HeraldCustomizer beans.", e);
      }
      String property = "herald." + s.setting().property();
      return new HeraldConfigurationException(property, e.reason(),
          "Fix " + property + " (or the HeraldCustomizer that sets it).", e);
    }

    static String kebab(String camel) {
      StringBuilder out = new StringBuilder();
      for (char c : camel.toCharArray()) {
        if (Character.isUpperCase(c)) {
          out.append('-').append(Character.toLowerCase(c));
        } else {
          out.append(c);
        }
      }
      return out.toString();
    }

    // ------------------------------------------------------------------ definitions

    /** A definition and where it was declared (a property prefix or a bean). */
    record Declared(NoticeDefinition definition, String origin) {}

    private Map<String, Declared> declaredDefinitions(Map<String, HandlerBeans.Found> handlers) {
      Map<String, HandlerBeans.Found> onHandlers = new LinkedHashMap<>();
      for (HandlerBeans.Found h : handlers.values()) {
        if (h.definition() == null) {
          continue;
        }
        String name = h.definition().name();
        HandlerBeans.Found before = onHandlers.putIfAbsent(name, h);
        if (before != null) {
          throw new HeraldConfigurationException(h.origin(), "definition '" + name + "' is also declared on "
              + before.origin(), "Declare each definition on one handler; other handlers take other definitions.");
        }
        try {
          DefinitionProperties.fromProperties(name, h.definition().settings()); // what the annotation says, checked on its own
        } catch (HeraldConfigurationException e) {
          throw new HeraldConfigurationException(h.origin(), "definition '" + name + "': "
              + e.getMessage().replace("herald.definitions." + name + ".", ""), "Fix the annotation's attribute.", e);
        }
      }
      Map<String, Declared> out = new LinkedHashMap<>();
      properties.getDefinitions().forEach((name, d) -> {
        HandlerBeans.Found h = onHandlers.remove(name);
        HeraldProperties.Definition merged = h == null ? d : DefinitionProperties.overridden(h.definition().settings(), d);
        Declared decl = new Declared(DefinitionProperties.fromProperties(name, merged), "herald.definitions." + name);
        out.put(decl.definition().name(), decl);
      });
      onHandlers.forEach((name, h) -> out.put(name, new Declared(DefinitionProperties.fromProperties(name, h.definition().settings()),
          h.origin() + ", definition '" + name + "'")));
      beanFactory.getBeansOfType(NoticeDefinition.class).forEach((beanName, d) -> {
        Declared before = out.putIfAbsent(d.name(), new Declared(d, "NoticeDefinition bean '" + beanName + "'"));
        if (before != null) {
          throw new HeraldConfigurationException("NoticeDefinition bean '" + beanName + "'",
              "definition '" + d.name() + "' is also declared by " + before.origin(),
              "Declare each definition once: in properties or as a bean.");
        }
      });
      return out;
    }

    private Map<String, Channel> channelBeans() {
      Map<String, Channel> out = new LinkedHashMap<>();
      beanFactory.getBeansOfType(Channel.class).forEach((beanName, c) -> out.put(beanName, c));
      return out;
    }

    private static void checkChannels(Map<String, Declared> declared, Map<String, Channel> channels,
        boolean customized) {
      if (customized) {
        return; // a customizer may add channels; the core checks every definition when saving it
      }
      Set<String> names = new LinkedHashSet<>();
      names.add(NoticeDefinition.LOCAL_CHANNEL);
      channels.values().forEach(c -> names.add(c.name()));
      for (Declared d : declared.values()) {
        if (!names.contains(d.definition().channel())) {
          throw new HeraldConfigurationException(originOf(d, ".channel"),
              "no channel named '" + d.definition().channel() + "'; channels here: " + names,
              "Define a bean implementing dev.herald.spi.Channel named '" + d.definition().channel()
                  + "', or pick one of " + names + ".");
        }
      }
    }

    private static String originOf(Declared d, String property) {
      return d.origin().startsWith("herald.") ? d.origin() + property : d.origin();
    }

    // ------------------------------------------------------------------ handler wiring

    private static void checkHandlersExist(Map<String, Declared> declared, Map<String, HandlerBeans.Found> handlers) {
      for (Declared d : declared.values()) {
        NoticeDefinition def = d.definition();
        if (def.channel().equals(NoticeDefinition.LOCAL_CHANNEL) && !handlers.containsKey(def.target())) {
          String source = d.origin().startsWith("herald.") ? d.origin() + ".handler" : d.origin();
          throw new HeraldConfigurationException(source,
              "definition '" + def.name() + "' is delivered by handler '" + def.target()
                  + "', but no bean provides it; handlers here: " + handlers.keySet(),
              "Annotate a bean method with @NoticeHandlerMethod(\"" + def.target() + "\") or a NoticeHandler bean with"
                  + " @HeraldHandler(\"" + def.target() + "\"). If a HeraldCustomizer registers it, set"
                  + " herald.verify-handlers=false.");
        }
      }
    }

    private static void checkHandlersTargeted(Herald herald, Map<String, HandlerBeans.Found> handlers) {
      Set<String> targeted = new LinkedHashSet<>();
      List<String> definitions = new ArrayList<>();
      for (NoticeDefinition d : herald.definitions().list()) {
        definitions.add(d.name());
        if (d.channel().equals(NoticeDefinition.LOCAL_CHANNEL)) {
          targeted.add(d.target());
        }
      }
      for (HandlerBeans.Found h : handlers.values()) {
        if (!targeted.contains(h.name())) {
          throw new HeraldConfigurationException(h.origin(),
              "handler '" + h.name() + "' is not the target of any definition (definitions: " + definitions + ")",
              "Declare a definition for it, e.g. herald.definitions.<name>.handler=" + h.name()
                  + ", or fix the handler's name.");
        }
      }
    }
  }
}
