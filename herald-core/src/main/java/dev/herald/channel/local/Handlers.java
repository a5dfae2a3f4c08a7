package dev.herald.channel.local;

import dev.herald.DeliveryResult;
import dev.herald.Notice;
import dev.herald.NoticeContext;
import dev.herald.NoticeHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;

/** Adapts an object's method to a {@link NoticeHandler}, as document 000 binds "bean + method". */
public final class Handlers {
  private Handlers() {}

  /**
   * A handler calling {@code target.methodName(...)}. The method is public and takes one of: nothing,
   * a {@link NoticeContext}, a {@link Notice}, or a {@code String} (the payload). It returns {@code
   * void} (success unless it throws), a {@code boolean} (false means retry), or a {@link
   * DeliveryResult}.
   *
   * @throws IllegalArgumentException naming the class and method when no such method fits
   */
  public static NoticeHandler method(Object target, String methodName) {
    Method m = Arrays.stream(target.getClass().getMethods())
        .filter(c -> c.getName().equals(methodName) && !Modifier.isStatic(c.getModifiers()))
        .filter(Handlers::fits)
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException(target.getClass().getName() + "." + methodName
            + ": no public method of that name takes (), (NoticeContext), (Notice) or (String) and returns"
            + " void, boolean or DeliveryResult"));
    return ctx -> {
      Object out;
      try {
        out = m.invoke(target, argumentsFor(m, ctx));
      } catch (InvocationTargetException e) {
        if (e.getCause() instanceof Exception ex) {
          throw ex;
        }
        throw e;
      }
      if (out instanceof DeliveryResult r) {
        return r;
      }
      if (out instanceof Boolean ok) {
        return ok ? DeliveryResult.delivered() : DeliveryResult.retry(methodName + " returned false");
      }
      return DeliveryResult.delivered();
    };
  }

  private static boolean fits(Method m) {
    Class<?> r = m.getReturnType();
    boolean returns = r == void.class || r == boolean.class || r == Boolean.class || r == DeliveryResult.class;
    Class<?>[] p = m.getParameterTypes();
    boolean takes = p.length == 0
        || (p.length == 1 && (p[0] == NoticeContext.class || p[0] == Notice.class || p[0] == String.class));
    return returns && takes;
  }

  private static Object[] argumentsFor(Method m, NoticeContext ctx) {
    if (m.getParameterCount() == 0) {
      return new Object[0];
    }
    Class<?> p = m.getParameterTypes()[0];
    if (p == NoticeContext.class) {
      return new Object[] {ctx};
    }
    return new Object[] {p == Notice.class ? ctx.notice() : ctx.payload()};
  }
}
