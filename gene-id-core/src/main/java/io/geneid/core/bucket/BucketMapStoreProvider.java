package io.geneid.core.bucket;

import io.geneid.core.settings.SettingsReader;
import java.util.Set;

/**
 * Creates a {@link BucketMapStore} from kebab-case properties, found through {@link java.util.ServiceLoader}
 * ({@code META-INF/services/io.geneid.core.bucket.BucketMapStoreProvider}). Types: {@code redis} (gene-id-redis),
 * {@code jdbc} (gene-id-jdbc). Integrations (ShardingSphere's {@code GENE_BUCKET}, the CLI) find one with
 * {@link BucketMapStores#provider(String)}, so they need the store module at run time only. The keys are those of
 * {@link io.geneid.core.settings.StoreKeys} ({@code jdbc-url}, {@code redis-uri}...); a front end with other names
 * ({@code map-store-url}) hands the provider a reader of these keys, {@link SettingsReader#named named} its way.
 */
public interface BucketMapStoreProvider {

  /** The value of {@code map-store} this provider serves, such as {@code redis}. */
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
   * A new store (a Redis store connects; a JDBC store takes connections from {@link java.sql.DriverManager}, one per
   * operation). The caller closes it if it is {@link AutoCloseable}.
   *
   * @throws IllegalArgumentException for a missing or malformed property, naming the key and the allowed values
   */
  BucketMapStore create(SettingsReader props);
}
