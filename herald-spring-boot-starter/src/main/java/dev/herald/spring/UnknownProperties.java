package dev.herald.spring;

import java.beans.PropertyDescriptor;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.beans.BeanUtils;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * Fails start-up on a key under {@code herald.*} that nothing reads, such as {@code
 * herald.pol-interval} or {@code herald.definitions.orders.chanel}, naming the closest known key. The
 * known keys are {@link HeraldProperties}' own, read from its class, and the channel modules' under their
 * prefixes ({@code herald.http.*} and the rest, read from their properties classes, or from a bean's
 * subclass of one, such as the server's); keys under the prefix of another {@code
 * @ConfigurationProperties} bean (such as the server's {@code herald.server.*}) belong to it.
 * Environment variables are not checked: their names map loosely to keys, and a variable such as
 * {@code HERALD_HOME} may mean something else.
 */
final class UnknownProperties {
  private static final ConfigurationPropertyName ROOT = ConfigurationPropertyName.of("herald");
  /**
   * Keys that Herald's optional parts read when they are present: the channel modules' settings
   * (their auto-configuration backs off without the module) and the metrics switch. Their absence is
   * not a typo in Herald's own keys, so they are left alone like another bean's prefix. Each part
   * contributes its prefix where it is declared: a properties class's {@code @ConfigurationProperties},
   * the metrics auto-configuration's switch.
   */
  private static final List<Class<?>> MODULES = List.of(HttpChannelProperties.class, MailChannelProperties.class,
      AmqpChannelProperties.class, KafkaChannelProperties.class);

  private static final List<ConfigurationPropertyName> OPTIONAL_PARTS = java.util.stream.Stream.concat(
      MODULES.stream().map(UnknownProperties::prefixOf),
      java.util.stream.Stream.of(HeraldMetricsAutoConfiguration.class.getAnnotation(
          org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty.class).name()[0])
          .map(switchName -> switchName.substring(0, switchName.lastIndexOf('.'))))
      .map(ConfigurationPropertyName::of).toList();

  private static String prefixOf(Class<?> properties) {
    ConfigurationProperties cp = properties.getAnnotation(ConfigurationProperties.class);
    return !cp.prefix().isEmpty() ? cp.prefix() : cp.value();
  }

  private UnknownProperties() {}

  /** @throws HeraldConfigurationException naming the first unknown key and the closest known one */
  static void check(Environment environment, ConfigurableListableBeanFactory beanFactory) {
    List<ConfigurationPropertyName> owned = otherPrefixes(beanFactory);
    Map<ConfigurationPropertyName, Class<?>> modules = moduleClasses(beanFactory);
    for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
      if (!(source instanceof IterableConfigurationPropertySource iterable)
          || source.getUnderlyingSource() instanceof SystemEnvironmentPropertySource) {
        continue;
      }
      iterable.stream()
          .filter(ROOT::isAncestorOf)
          .forEach(name -> unknown(name, modules, owned).ifPresent(known -> {
            throw new HeraldConfigurationException(name.toString(), "no such property; did you mean " + known + "?",
                "Fix the key. Herald's properties are listed in"
                    + " its starter's README and in your IDE; set herald.fail-on-unknown-properties=false to allow"
                    + " keys that something else reads.");
          }));
    }
  }

  /** The closest known key if {@code name} is unknown; empty if it is known or another bean's. */
  private static Optional<String> unknown(ConfigurationPropertyName name, Map<ConfigurationPropertyName, Class<?>> modules,
      List<ConfigurationPropertyName> owned) {
    for (Map.Entry<ConfigurationPropertyName, Class<?>> m : modules.entrySet()) {
      if (m.getKey().isAncestorOf(name)) {
        return unknownAt(name, m.getKey().getNumberOfElements(), m.getValue());
      }
    }
    if (owned.stream().anyMatch(prefix -> prefix.equals(name) || prefix.isAncestorOf(name))) {
      return Optional.empty();
    }
    return unknownAt(name, 1, HeraldProperties.class);
  }

  /** Each channel module's prefix and the class its keys are read from: a bean's subclass where there is one. */
  private static Map<ConfigurationPropertyName, Class<?>> moduleClasses(ConfigurableListableBeanFactory beanFactory) {
    Map<ConfigurationPropertyName, Class<?>> out = new LinkedHashMap<>();
    for (Class<?> module : MODULES) {
      Class<?> type = module;
      for (String bean : beanFactory.getBeanNamesForType(module, true, false)) {
        Class<?> beanType = beanFactory.getType(bean, false);
        if (beanType != null && module.isAssignableFrom(beanType) && type.isAssignableFrom(beanType)) {
          type = org.springframework.util.ClassUtils.getUserClass(beanType);
        }
      }
      out.put(ConfigurationPropertyName.of(prefixOf(module)), type);
    }
    return out;
  }

  private static List<ConfigurationPropertyName> otherPrefixes(ConfigurableListableBeanFactory beanFactory) {
    List<ConfigurationPropertyName> out = new ArrayList<>(OPTIONAL_PARTS);
    for (String bean : beanFactory.getBeanNamesForAnnotation(ConfigurationProperties.class)) {
      ConfigurationProperties cp = beanFactory.findAnnotationOnBean(bean, ConfigurationProperties.class, false);
      String prefix = cp == null ? "" : !cp.prefix().isEmpty() ? cp.prefix() : cp.value();
      if (!prefix.isEmpty() && ConfigurationPropertyName.isValid(prefix)) {
        ConfigurationPropertyName name = ConfigurationPropertyName.of(prefix);
        if (ROOT.isAncestorOf(name)) {
          out.add(name);
        }
      }
    }
    return out;
  }

  /**
   * Whether {@code name}, from element {@code index} on, names a property of {@code type}: empty if it
   * does, else the closest known key, or the keys known there if none is close.
   */
  private static Optional<String> unknownAt(ConfigurationPropertyName name, int index, Class<?> type) {
    if (index >= name.getNumberOfElements()) {
      return Optional.empty();
    }
    Map<String, PropertyDescriptor> properties = propertiesOf(type);
    PropertyDescriptor p = properties.get(name.getElement(index, Form.UNIFORM));
    if (p == null) {
      String prefix = name.chop(index).toString();
      String written = name.getElement(index, Form.DASHED);
      List<String> known = properties.values().stream().map(d -> kebab(d.getName())).toList();
      return Optional.of(dev.herald.DidYouMean.closest(written, known)
          .map(k -> prefix + "." + k)
          .orElse("one of " + prefix + "." + known));
    }
    Class<?> t = p.getPropertyType();
    if (Map.class.isAssignableFrom(t)) {
      Class<?> value = mapValueType(p);
      return value != null && isNested(value) ? unknownAt(name, index + 2, value) : Optional.empty();
    }
    return isNested(t) ? unknownAt(name, index + 1, t) : Optional.empty();
  }

  /** A group of settings of its own, such as a definition, rather than a value. */
  private static boolean isNested(Class<?> type) {
    return type.getEnclosingClass() != null && type.getPackageName().equals(HeraldProperties.class.getPackageName())
        && !type.isEnum();
  }

  private static Class<?> mapValueType(PropertyDescriptor p) {
    if (p.getReadMethod() != null && p.getReadMethod().getGenericReturnType() instanceof ParameterizedType pt) {
      Type value = pt.getActualTypeArguments()[1];
      return value instanceof Class<?> c ? c : null;
    }
    return null;
  }

  /** The bindable properties of {@code type}, by their uniform name (lower case, no dashes). */
  private static Map<String, PropertyDescriptor> propertiesOf(Class<?> type) {
    Map<String, PropertyDescriptor> out = new LinkedHashMap<>();
    for (PropertyDescriptor p : BeanUtils.getPropertyDescriptors(type)) {
      if (p.getReadMethod() != null && !p.getName().equals("class")) {
        out.put(p.getName().toLowerCase(java.util.Locale.ROOT), p);
      }
    }
    return out;
  }

  private static String kebab(String camel) {
    return HeraldAutoConfiguration.HeraldFactory.kebab(camel);
  }

}
