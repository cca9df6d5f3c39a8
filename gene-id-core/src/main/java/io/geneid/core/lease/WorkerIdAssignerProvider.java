package io.geneid.core.lease;

import io.geneid.core.settings.SettingsReader;
import java.util.Set;

/**
 * Creates a {@link WorkerIdAssigner} from kebab-case properties, found through {@link java.util.ServiceLoader}
 * ({@code META-INF/services/io.geneid.core.lease.WorkerIdAssignerProvider}). Types: {@code static} (gene-id-core),
 * {@code redis} (gene-id-redis), {@code jdbc} (gene-id-jdbc), {@code zookeeper} (gene-id-zookeeper), {@code etcd}
 * (gene-id-etcd). Integrations (ShardingSphere props, Spring Boot
 * properties) go through {@link WorkerIdAssigners#sharedGenerator(Map)} rather than calling providers directly.
 */
public interface WorkerIdAssignerProvider {

  /** The value of {@code worker-assigner} this provider serves, such as {@code redis}. */
  String type();

  /**
   * The properties only this type reads (such as {@code redis-uri}). The common ones
   * ({@link WorkerIdAssigners#COMMON_ASSIGNER_KEYS}) and the generator's ({@link WorkerIdAssigners#GENERATOR_KEYS})
   * are accepted for every type; any other key is an error naming it.
   */
  Set<String> propertyKeys();

  /**
   * A new assigner. {@code props} may also hold common and generator keys, which the provider reads or ignores.
   *
   * @throws IllegalArgumentException for a missing or malformed property, naming the key and the allowed values
   */
  WorkerIdAssigner create(SettingsReader props);

  /**
   * Checks this type's properties without creating an assigner or reaching its store, so that configuration can be
   * validated at start-up with no side effect ({@link WorkerIdAssigners#check(SettingsReader)}). The default checks nothing
   * beyond what {@link WorkerIdAssigners#check(SettingsReader)} does for every type.
   *
   * @throws IllegalArgumentException for a missing or malformed property, naming the key and the allowed values
   */
  default void check(SettingsReader props) {}
}
