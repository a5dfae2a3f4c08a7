package dev.herald.spring;

import dev.herald.InvalidInputException;
import dev.herald.NoticeRequest;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Optional;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.PayloadApplicationEvent;
import org.springframework.core.annotation.AnnotationUtils;

/**
 * Turns application events whose type is marked {@link NoticeEvent} into notices, on the publishing
 * thread, so that a notice joins the transaction the event was published in.
 */
public class NoticeEvents implements ApplicationListener<ApplicationEvent> {
  private final ObjectProvider<NoticePublisher> publisher;

  /** How each event type maps to a notice; empty for types that are not notices. */
  private final ClassValue<Optional<Mapping>> mappings = new ClassValue<>() {
    @Override
    protected Optional<Mapping> computeValue(Class<?> type) {
      NoticeEvent marker = AnnotationUtils.findAnnotation(type, NoticeEvent.class);
      return marker == null ? Optional.empty() : Optional.of(Mapping.of(type, marker));
    }
  };

  /** @param publisher looked up at the first event, so that handler beans may publish events too */
  public NoticeEvents(ObjectProvider<NoticePublisher> publisher) {
    this.publisher = publisher;
  }

  @Override
  public void onApplicationEvent(ApplicationEvent event) {
    Object source = event instanceof PayloadApplicationEvent<?> p ? p.getPayload() : event;
    Optional<Mapping> mapping = mappings.get(source.getClass());
    if (mapping.isPresent()) {
      NoticePublisher notices = publisher.getObject();
      Mapping m = mapping.get();
      String key = m.idempotencyKey(source);
      if (m.eventType() != null) {
        dev.herald.events.EventRequest request = notices.eventRequest(m.eventType(), m.payload(source));
        notices.publishEvent(key == null ? request : request.idempotencyKey(key));
        return;
      }
      NoticeRequest request = notices.request(m.definition(), m.payload(source));
      notices.publish(key == null ? request : request.idempotencyKey(key));
    }
  }

  /** A {@link NoticeEvent} type's definition (or event type) and accessors. */
  private record Mapping(Class<?> type, String definition, String eventType, Method payload, Method idempotencyKey) {
    static Mapping of(Class<?> type, NoticeEvent marker) {
      if (marker.value().isBlank() == marker.eventType().isBlank()) {
        throw new InvalidInputException("@NoticeEvent on " + type.getName(),
            "name either a definition (value) or an event type (eventType), not " + (marker.value().isBlank()
                ? "neither" : "both"));
      }
      return new Mapping(type, marker.value().isBlank() ? null : marker.value(),
          marker.eventType().isBlank() ? null : marker.eventType(), accessor(type, marker.payload(), "payload"),
          accessor(type, marker.idempotencyKey(), "idempotencyKey"));
    }

    private static Method accessor(Class<?> type, String name, String attribute) {
      if (name.isBlank()) {
        return null;
      }
      for (String candidate : new String[] {name, "get" + Character.toUpperCase(name.charAt(0)) + name.substring(1)}) {
        try {
          Method m = type.getMethod(candidate);
          if (!Modifier.isStatic(m.getModifiers()) && m.getReturnType() != void.class) {
            m.trySetAccessible();
            return m;
          }
        } catch (NoSuchMethodException e) {
          // try the next form
        }
      }
      throw new InvalidInputException("@NoticeEvent." + attribute + " on " + type.getName(),
          "no public property '" + name + "' (a record component, a no-argument method or a getter)");
    }

    Object payload(Object event) {
      return payload == null ? event : read(payload, event);
    }

    String idempotencyKey(Object event) {
      Object key = idempotencyKey == null ? null : read(idempotencyKey, event);
      return key == null ? null : key.toString();
    }

    private static Object read(Method m, Object event) {
      try {
        return m.invoke(event);
      } catch (IllegalAccessException e) {
        throw new IllegalStateException("cannot read " + m + ": " + e.getMessage(), e);
      } catch (InvocationTargetException e) {
        throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
      }
    }
  }
}
