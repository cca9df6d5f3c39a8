package io.geneid.core.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/** Not API: finds the provider of a type name through {@link ServiceLoader}, as every provider SPI of gene-id does. */
public final class ServiceProviders {

  private ServiceProviders() {}

  /**
   * The provider of {@code service} whose {@code typeOf} is {@code type}, found on the thread's context class loader,
   * then on gene-id-core's.
   *
   * @param key the setting that names the type ({@code worker-assigner}, {@code segment-store}), for the message
   * @throws IllegalArgumentException {@code "<key> must be one of [<types found>] but was '<type>'"}, followed by
   *     {@code ": add io.geneid:gene-id-<type> to the class path"} for {@code redis} and {@code jdbc}
   */
  public static <P> P find(Class<P> service, Function<P, String> typeOf, String key, String type) {
    Set<String> found = new TreeSet<>();
    List<ClassLoader> loaders = new ArrayList<>();
    ClassLoader context = Thread.currentThread().getContextClassLoader();
    if (context != null) {
      loaders.add(context);
    }
    loaders.add(ServiceProviders.class.getClassLoader());
    for (ClassLoader loader : loaders) {
      for (P p : ServiceLoader.load(service, loader)) {
        if (typeOf.apply(p).equals(type)) {
          return p;
        }
        found.add(typeOf.apply(p));
      }
    }
    throw new IllegalArgumentException(key + " must be one of " + found + " but was '" + type + "'"
        + ("redis".equals(type) || "jdbc".equals(type) ? ": add io.geneid:gene-id-" + type + " to the class path" : ""));
  }
}
