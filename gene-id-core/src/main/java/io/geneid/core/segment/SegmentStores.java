package io.geneid.core.segment;

import io.geneid.core.internal.ServiceProviders;

/** Segment stores from kebab-case properties: the {@link SegmentStoreProvider} of a {@code segment-store} type. */
public final class SegmentStores {

  /** The key naming the store type: {@code jdbc} or {@code redis}. */
  public static final String SEGMENT_STORE = "segment-store";

  private SegmentStores() {}

  /**
   * The provider for a {@code segment-store} type, found with {@link java.util.ServiceLoader} on the thread's context
   * class loader, then on gene-id-core's.
   *
   * @throws IllegalArgumentException naming the type and the types found, and the module that brings it
   */
  public static SegmentStoreProvider provider(String type) {
    return ServiceProviders.find(SegmentStoreProvider.class, SegmentStoreProvider::type, SEGMENT_STORE, type);
  }
}
