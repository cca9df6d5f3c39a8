package io.geneid.core.segment;

import io.geneid.core.settings.SettingsReader;
import java.util.Set;

/**
 * Creates a {@link SegmentStore} from kebab-case properties, found through {@link java.util.ServiceLoader}
 * ({@code META-INF/services/io.geneid.core.segment.SegmentStoreProvider}). Types: {@code redis} (gene-id-redis),
 * {@code jdbc} (gene-id-jdbc). Integrations (ShardingSphere props, gene-id-server) find one with
 * {@link SegmentStores#provider(String)}, so they need the store module at run time only. The keys are those of
 * {@link io.geneid.core.settings.StoreKeys}; a front end with other names reads its own and hands the provider a
 * reader of these keys, {@link SettingsReader#named named} its way.
 */
public interface SegmentStoreProvider {

  /** The value of {@code segment-store} this provider serves, such as {@code redis}. */
  String type();

  /** The properties this type reads (such as {@code redis-uri}); any other key is the caller's to refuse. */
  Set<String> propertyKeys();

  /**
   * Checks this type's properties without creating a store or reaching it, so that configuration can be validated
   * at start-up with no side effect.
   *
   * @throws IllegalArgumentException for a missing or malformed property, naming the key and the allowed values
   */
  void check(SettingsReader props);

  /**
   * A new store (a Redis store connects; a JDBC store reaches its database on first use, or at once with
   * {@code jdbc-create-table}). The caller closes it if it is {@link AutoCloseable}.
   *
   * @throws IllegalArgumentException for a missing or malformed property, naming the key and the allowed values
   */
  SegmentStore create(SettingsReader props);
}
