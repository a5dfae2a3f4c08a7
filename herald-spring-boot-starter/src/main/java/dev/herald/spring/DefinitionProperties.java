package dev.herald.spring;

import dev.herald.AlertPolicy;
import dev.herald.InvalidInputException;
import dev.herald.NoticeDefinition;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Definitions as {@code herald.definitions.<name>.*} (and handler annotations) declare them: read into
 * {@link NoticeDefinition}s, a core complaint named as the property behind its field.
 */
final class DefinitionProperties {
  private DefinitionProperties() {}

  /** A definition declared on a handler, with the settings its properties give instead. */
  static HeraldProperties.Definition overridden(HeraldProperties.Definition base, HeraldProperties.Definition over) {
    HeraldProperties.Definition d = new HeraldProperties.Definition();
    boolean delivery = over.getHandler() != null || over.getChannel() != null || over.getTarget() != null;
    HeraldProperties.Definition where = delivery ? over : base;
    d.setHandler(where.getHandler());
    d.setChannel(where.getChannel());
    d.setTarget(where.getTarget());
    d.setRetry(first(over.getRetry(), base.getRetry()));
    d.setMaxAttempts(first(over.getMaxAttempts(), base.getMaxAttempts()));
    d.setMaxInterval(first(over.getMaxInterval(), base.getMaxInterval()));
    d.setAlert(first(over.getAlert(), base.getAlert()));
    d.setConfirmRequired(first(over.getConfirmRequired(), base.getConfirmRequired()));
    d.setConfirmTimeout(first(over.getConfirmTimeout(), base.getConfirmTimeout()));
    d.setDescription(first(over.getDescription(), base.getDescription()));
    d.setOrdering(first(over.getOrdering(), base.getOrdering()));
    Map<String, String> options = new LinkedHashMap<>(base.getOptions());
    options.putAll(over.getOptions());
    d.setOptions(options);
    return d;
  }

  private static <T> T first(T preferred, T fallback) {
    return preferred != null ? preferred : fallback;
  }

  static NoticeDefinition fromProperties(String name, HeraldProperties.Definition d) {
    String prefix = "herald.definitions." + name;
    try {
      NoticeDefinition.Builder b = NoticeDefinition.builder(name);
      if (d.getHandler() != null) {
        if (d.getChannel() != null || d.getTarget() != null) {
          throw new HeraldConfigurationException(prefix + ".handler",
              "give either handler or channel and target, not both",
              "Use handler for an in-process handler bean, or channel and target for another channel.");
        }
        b.handler(d.getHandler());
      } else if (d.getTarget() != null) {
        b.channel(d.getChannel() != null ? d.getChannel() : NoticeDefinition.LOCAL_CHANNEL, d.getTarget());
      } else if (d.getChannel() != null) {
        b.perNoticeTarget(d.getChannel()); // each notice gives its own; the channel must allow it
      } else {
        throw new HeraldConfigurationException(prefix, "says nowhere to deliver",
            "Set " + prefix + ".handler to a handler bean's name, or " + prefix + ".channel and "
                + prefix + ".target (or the channel alone where each notice gives its own target).");
      }
      set(d.getRetry(), b::retry);
      set(d.getMaxAttempts(), b::maxAttempts);
      set(d.getMaxInterval(), b::maxInterval);
      if (d.getAlert() != null) {
        b.alert(AlertPolicy.parse(d.getAlert()));
      }
      set(d.getConfirmRequired(), b::confirmRequired);
      set(d.getConfirmTimeout(), b::confirmTimeout);
      set(d.getDescription(), b::description);
      if (d.getOrdering() != null) {
        b.ordered(dev.herald.Ordering.parse(d.getOrdering()));
      }
      d.getOptions().forEach(b::option);
      return b.build();
    } catch (InvalidInputException e) {
      String property = prefix + propertyOf(e.field(), d);
      throw new HeraldConfigurationException(property, e.reason(), "Fix " + property + ".", e);
    }
  }

  static String propertyOf(String field, NoticeDefinition d) {
    HeraldProperties.Definition p = new HeraldProperties.Definition();
    if (d.channel().equals(NoticeDefinition.LOCAL_CHANNEL)) {
      p.setHandler(d.target());
    }
    return propertyOf(field, p);
  }

  /** The definition property behind a core field name such as {@code retrySchedule.factor}. */
  private static String propertyOf(String field, HeraldProperties.Definition d) {
    String head = field.contains(".") ? field.substring(0, field.indexOf('.')) : field;
    return switch (head) {
      case "name" -> "";
      case "retrySchedule" -> ".retry";
      case "alertPolicy" -> ".alert";
      case "options" -> field.contains(".") ? ".options[" + field.substring(field.indexOf('.') + 1) + "]" : ".options";
      case "target" -> d.getHandler() != null ? ".handler" : ".target";
      default -> "." + HeraldAutoConfiguration.HeraldFactory.kebab(head);
    };
  }

  private static <T> void set(T value, Consumer<T> setter) {
    if (value != null) {
      setter.accept(value);
    }
  }
}
