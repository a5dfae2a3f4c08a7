package dev.herald.spring;

import dev.herald.DeliveryResult;
import dev.herald.Notice;
import dev.herald.NoticeContext;
import dev.herald.NoticeHandler;
import java.lang.annotation.Annotation;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.json.JsonMapper;

/**
 * Finds handler beans: methods annotated with {@link NoticeHandlerMethod} and {@link
 * dev.herald.NoticeHandler} beans annotated with {@link HeraldHandler}. It reads bean types without
 * creating the beans; each handler looks its bean up at its first delivery, so that a handler bean
 * may itself depend on the {@link NoticePublisher} without a dependency cycle.
 */
final class HandlerBeans {

  /**
   * One handler found, and where it came from (for messages).
   *
   * @param definition the definition its annotation declares, or null
   */
  record Found(String name, String beanName, String origin, NoticeHandler handler, DeclaredHere definition) {}

  /** A definition declared on a handler's annotation: its name and settings, delivered by the handler. */
  record DeclaredHere(String name, HeraldProperties.Definition settings) {}

  private HandlerBeans() {}

  /**
   * Every handler bean, by name.
   *
   * @throws HeraldConfigurationException naming the bean for a wrong signature, a blank name or two
   *     handlers of one name
   */
  static Map<String, Found> scan(ConfigurableListableBeanFactory beanFactory, Supplier<JsonMapper> jsonMapper) {
    List<Found> all = new ArrayList<>();
    for (String beanName : beanFactory.getBeanDefinitionNames()) {
      if (ScopedProxyUtils.isScopedTarget(beanName)) {
        continue; // its scoped proxy is scanned under the plain name
      }
      BeanDefinition bd = beanFactory.getMergedBeanDefinition(beanName);
      if (bd.isAbstract() || bd.getRole() == BeanDefinition.ROLE_INFRASTRUCTURE) {
        continue;
      }
      Class<?> type = beanFactory.getType(beanName, false);
      if (type == null) {
        continue;
      }
      Class<?> userType = ClassUtils.getUserClass(type);
      HeraldHandler marker = beanFactory.findAnnotationOnBean(beanName, HeraldHandler.class, false);
      if (marker != null) {
        all.add(handlerBean(beanFactory, beanName, userType, marker));
      }
      if (AnnotationUtils.isCandidateClass(userType, NoticeHandlerMethod.class)) {
        Map<Method, NoticeHandlerMethod> methods = MethodIntrospector.selectMethods(userType,
            (MethodIntrospector.MetadataLookup<NoticeHandlerMethod>) m ->
                AnnotatedElementUtils.findMergedAnnotation(m, NoticeHandlerMethod.class));
        for (Map.Entry<Method, NoticeHandlerMethod> e : methods.entrySet()) {
          all.add(handlerMethod(beanFactory, beanName, e.getKey(), e.getValue(), jsonMapper));
        }
      }
    }
    Map<String, Found> byName = new LinkedHashMap<>();
    for (Found f : all) {
      Found before = byName.putIfAbsent(f.name(), f);
      if (before != null) {
        throw new HeraldConfigurationException(f.origin(),
            "handler '" + f.name() + "' is already provided by " + before.origin(),
            "Give each handler its own name; a handler name is unique in the application.");
      }
    }
    return byName;
  }

  private static Found handlerBean(ConfigurableListableBeanFactory bf, String beanName, Class<?> type, HeraldHandler marker) {
    String origin = "bean '" + beanName + "' (@HeraldHandler on " + type.getName() + ")";
    if (!NoticeHandler.class.isAssignableFrom(type)) {
      throw new HeraldConfigurationException(origin, "a @HeraldHandler bean must implement " + NoticeHandler.class.getName(),
          "Implement NoticeHandler, or annotate a method with @NoticeHandlerMethod instead.");
    }
    String name = marker.value().isBlank() ? beanName : marker.value();
    NoticeHandler lazy = ctx -> ((NoticeHandler) bf.getBean(beanName)).handle(ctx);
    return new Found(name, beanName, origin, lazy, declaredHere(marker, name, origin));
  }

  private enum Param { CONTEXT, NOTICE, RAW_PAYLOAD, MAPPED_PAYLOAD }

  private static Found handlerMethod(ConfigurableListableBeanFactory bf, String beanName, Method method,
      NoticeHandlerMethod annotation, Supplier<JsonMapper> jsonMapper) {
    String origin = "bean '" + beanName + "' method " + describe(method);
    String name = annotation.value();
    if (name == null || name.isBlank()) {
      throw new HeraldConfigurationException(origin, "@NoticeHandlerMethod needs a handler name",
          "Name the handler: @NoticeHandlerMethod(\"my-handler\").");
    }
    String signature = "Use a public, non-static method taking any of NoticeContext, Notice and one payload parameter"
        + " (String for the JSON text, or a type Jackson can read it into), returning void, boolean or DeliveryResult.";
    if (!Modifier.isPublic(method.getModifiers()) || Modifier.isStatic(method.getModifiers())) {
      throw new HeraldConfigurationException(origin, "a handler method must be public and not static", signature);
    }
    Class<?> r = method.getReturnType();
    if (r != void.class && r != boolean.class && r != Boolean.class && r != DeliveryResult.class) {
      throw new HeraldConfigurationException(origin,
          "a handler method returns void, boolean or DeliveryResult, not " + r.getSimpleName(), signature);
    }
    Class<?>[] types = method.getParameterTypes();
    Param[] params = new Param[types.length];
    Type payloadType = null;
    for (int i = 0; i < types.length; i++) {
      if (types[i] == NoticeContext.class) {
        params[i] = Param.CONTEXT;
      } else if (types[i] == Notice.class) {
        params[i] = Param.NOTICE;
      } else {
        if (payloadType != null) {
          throw new HeraldConfigurationException(origin,
              "a handler method takes at most one payload parameter, this one has two ("
                  + method.getGenericParameterTypes()[i].getTypeName() + " and " + payloadType.getTypeName() + ")",
              signature);
        }
        payloadType = method.getGenericParameterTypes()[i];
        params[i] = types[i] == String.class ? Param.RAW_PAYLOAD : Param.MAPPED_PAYLOAD;
      }
    }
    return new Found(name, beanName, origin, new MethodHandler(bf, beanName, method, params, payloadType, jsonMapper, name),
        declaredHere(annotation, name, origin));
  }

  /** The definition an annotation declares (its {@code definition} attribute), or null. */
  private static DeclaredHere declaredHere(Annotation annotation, String handlerName, String origin) {
    Map<String, Object> a = AnnotationUtils.getAnnotationAttributes(annotation);
    String definition = (String) a.get("definition");
    if (definition.isBlank()) {
      for (String setting : List.of("retry", "maxInterval", "alert", "confirmTimeout", "description")) {
        if (!((String) a.get(setting)).isEmpty()) {
          throw new HeraldConfigurationException(origin, "'" + setting + "' is set, but no definition is named",
              "Name the definition the settings are for: definition = \"...\".");
        }
      }
      return null;
    }
    HeraldProperties.Definition d = new HeraldProperties.Definition();
    d.setHandler(handlerName);
    d.setRetry(text(a, "retry"));
    int maxAttempts = (Integer) a.get("maxAttempts");
    d.setMaxAttempts(maxAttempts == NoticeHandlerMethod.UNSET ? null : maxAttempts);
    d.setMaxInterval(duration(a, "maxInterval", origin));
    d.setAlert(text(a, "alert"));
    d.setConfirmRequired((Boolean) a.get("confirmRequired") ? Boolean.TRUE : null);
    d.setConfirmTimeout(duration(a, "confirmTimeout", origin));
    d.setDescription(text(a, "description"));
    return new DeclaredHere(definition, d);
  }

  private static String text(Map<String, Object> a, String name) {
    String v = (String) a.get(name);
    return v.isEmpty() ? null : v;
  }

  private static Duration duration(Map<String, Object> a, String name, String origin) {
    String v = text(a, name);
    try {
      return v == null ? null : DurationStyle.detectAndParse(v);
    } catch (IllegalArgumentException e) {
      throw new HeraldConfigurationException(origin, name + ": '" + v + "' is not a duration",
          "Write it as properties do: 500ms, 5s, 10m, 6h or PT5S.");
    }
  }

  private static String describe(Method m) {
    return ClassUtils.getUserClass(m.getDeclaringClass()).getName() + "#" + m.getName()
        + Arrays.stream(m.getParameterTypes()).map(Class::getSimpleName).collect(Collectors.joining(", ", "(", ")"));
  }

  /** Calls one annotated method; resolves the bean and the invocable method at first use. */
  private static final class MethodHandler implements NoticeHandler {
    private final ConfigurableListableBeanFactory beanFactory;
    private final String beanName;
    private final Method method;
    private final Param[] params;
    private final Type payloadType;
    private final Supplier<JsonMapper> jsonMapper;
    private final String handlerName;
    private volatile Object bean;
    private volatile Method invocable;
    private volatile JavaType javaType;

    MethodHandler(ConfigurableListableBeanFactory beanFactory, String beanName, Method method, Param[] params,
        Type payloadType, Supplier<JsonMapper> jsonMapper, String handlerName) {
      this.beanFactory = beanFactory;
      this.beanName = beanName;
      this.method = method;
      this.params = params;
      this.payloadType = payloadType;
      this.jsonMapper = jsonMapper;
      this.handlerName = handlerName;
    }

    @Override
    public DeliveryResult handle(NoticeContext ctx) throws Exception {
      Object target = bean;
      Method m = invocable;
      if (target == null || m == null) {
        target = beanFactory.getBean(beanName);
        m = AopUtils.selectInvocableMethod(method, target.getClass());
        bean = target;
        invocable = m;
      }
      Object[] args = new Object[params.length];
      for (int i = 0; i < params.length; i++) {
        if (params[i] == Param.MAPPED_PAYLOAD) {
          try {
            args[i] = read(ctx.payload());
          } catch (UnreadablePayload e) {
            // The payload is stored and never changes: every retry would fail alike.
            return DeliveryResult.fail(e.getMessage());
          }
        } else {
          args[i] = switch (params[i]) {
            case CONTEXT -> ctx;
            case NOTICE -> ctx.notice();
            default -> ctx.payload();
          };
        }
      }
      Object out;
      try {
        out = m.invoke(target, args);
      } catch (InvocationTargetException e) {
        if (e.getCause() instanceof Exception ex) {
          throw ex;
        }
        throw e;
      }
      if (out instanceof DeliveryResult result) {
        return result;
      }
      if (out instanceof Boolean ok) {
        return ok ? DeliveryResult.delivered() : DeliveryResult.retry(handlerName + " returned false");
      }
      if (m.getReturnType() != void.class) {
        return DeliveryResult.retry(handlerName + " returned null");
      }
      return DeliveryResult.delivered();
    }

    private Object read(String payload) throws UnreadablePayload {
      JsonMapper mapper = jsonMapper.get();
      JavaType t = javaType;
      if (t == null) {
        t = mapper.constructType(payloadType);
        javaType = t;
      }
      try {
        return mapper.readValue(payload, t);
      } catch (JacksonException e) {
        throw new UnreadablePayload("payload does not read as " + payloadType.getTypeName() + ", the parameter of "
            + "handler '" + handlerName + "' (" + describe(method) + "): " + e.getOriginalMessage()
            + "; failed for good without calling the method (a stored payload never changes: edit the notice's"
            + " payload or fix the handler's type, then resend it)");
      }
    }
  }

  /** A notice's payload that Jackson cannot read as the handler method's parameter type. */
  private static final class UnreadablePayload extends Exception {
    UnreadablePayload(String message) {
      super(message, null, false, false);
    }
  }
}
