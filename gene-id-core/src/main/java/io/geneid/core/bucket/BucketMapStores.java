package io.geneid.core.bucket;

import io.geneid.core.internal.ServiceProviders;

/** Bucket-map stores from kebab-case properties: the {@link BucketMapStoreProvider} of a {@code map-store} type. */
public final class BucketMapStores {

  /** The key naming the store type: {@code jdbc} or {@code redis}. */
  public static final String MAP_STORE = "map-store";

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
}
