package io.geneid.core.bucket;

import io.geneid.core.internal.ServiceProviders;
import io.geneid.core.settings.SettingsReader;
import io.geneid.core.settings.StoreKeys;
import java.util.Map;
import java.util.TreeMap;

/**
 * Bucket-map stores from kebab-case properties: the {@link BucketMapStoreProvider} of a {@code map-store} type, and
 * the {@code map-store-*} properties of ShardingSphere's {@code GENE_BUCKET} (which the CLI reads too) as the
 * providers read them.
 */
public final class BucketMapStores {

  /** The key naming the store type: {@code jdbc} or {@code redis}. */
  public static final String MAP_STORE = "map-store";
  /** The store's JDBC URL or Redis URI ({@code jdbc-url} or {@code redis-uri} of the provider). */
  public static final String MAP_STORE_URL = "map-store-url";
  /** The database user ({@code jdbc-username}). */
  public static final String MAP_STORE_USERNAME = "map-store-username";
  /** The database password ({@code jdbc-password}). */
  public static final String MAP_STORE_PASSWORD = "map-store-password";
  /** The map table ({@code jdbc-table}). */
  public static final String MAP_STORE_TABLE = "map-store-table";
  /** Whether the map tables are created on first use ({@code jdbc-create-table}). */
  public static final String MAP_STORE_CREATE_TABLE = "map-store-create-table";
  /** The first part of the Redis keys ({@code redis-key-prefix}). */
  public static final String MAP_STORE_KEY_PREFIX = "map-store-key-prefix";
  /** The map's name in the store. */
  public static final String MAP_NAME = "map-name";

  private static final Map<String, String> JDBC_NAMES = Map.of(StoreKeys.JDBC_URL, MAP_STORE_URL,
      StoreKeys.JDBC_USERNAME, MAP_STORE_USERNAME, StoreKeys.JDBC_PASSWORD, MAP_STORE_PASSWORD, StoreKeys.JDBC_TABLE,
      MAP_STORE_TABLE, StoreKeys.JDBC_CREATE_TABLE, MAP_STORE_CREATE_TABLE);
  private static final Map<String, String> REDIS_NAMES = Map.of(StoreKeys.REDIS_URI, MAP_STORE_URL,
      StoreKeys.REDIS_KEY_PREFIX, MAP_STORE_KEY_PREFIX);

  private BucketMapStores() {}

  /**
   * The provider for a {@code map-store} type, found with {@link java.util.ServiceLoader} on the thread's context
   * class loader, then on gene-id-core's.
   *
   * @throws IllegalArgumentException naming the type and the types found, and the module that brings it
   */
  public static BucketMapStoreProvider provider(String type) {
    return ServiceProviders.find(BucketMapStoreProvider.class, BucketMapStoreProvider::type, MAP_STORE, type);
  }

  /**
   * The {@code map-store-*} values of {@code props} under the keys the {@code type} provider reads
   * ({@code map-store-url} as {@code jdbc-url} or {@code redis-uri}...), named in messages by their
   * {@code map-store-*} names; other keys of {@code props} are left out.
   */
  public static SettingsReader storeSettings(String type, Map<String, ?> props) {
    Map<String, String> names = type.equals("jdbc") ? JDBC_NAMES : REDIS_NAMES;
    Map<String, Object> values = new TreeMap<>();
    names.forEach((key, name) -> {
      Object value = props.get(name);
      if (value != null) {
        values.put(key, value);
      }
    });
    return SettingsReader.of(values).named(key -> names.getOrDefault(key, key));
  }
}
