package io.geneid.shardingsphere;

import io.geneid.core.segment.SegmentStore;
import io.geneid.core.segment.SegmentStoreProvider;
import io.geneid.core.segment.SegmentStores;
import io.geneid.core.settings.SettingsReader;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The segment stores of {@code GENE_SEGMENT}, one per store configuration in this JVM, created on first use through
 * the store module's {@link SegmentStoreProvider} ({@link SegmentStores#provider(String)}):
 * the store modules are run-time dependencies only, and a missing one is reported by
 * {@link #provider(String, String)} as the artifact to add.
 */
final class SharedSegmentStores {

  /** What a store is made from; {@code key} identifies it without the password; {@code props} has the store keys. */
  record Config(String type, String key, Map<String, String> props) {}

  private static final Map<String, SegmentStore> STORES = new ConcurrentHashMap<>();

  private SharedSegmentStores() {}

  /**
   * The provider of {@code segment-store} {@code type}.
   *
   * @throws IllegalArgumentException naming the artifact to add when the store's module is not on the class path
   */
  static SegmentStoreProvider provider(String type, String property) {
    try {
      return SegmentStores.provider(type);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(GeneSegmentKeyGenerateAlgorithm.TYPE + " property '" + property + "' is "
          + type + " but gene-id-" + type + " (its segment store provider) is not on the class path: add the"
          + " dependency io.geneid:gene-id-" + type, e);
    }
  }

  /** The JVM-wide store for this configuration, created (and for Redis connected) on first call. */
  static SegmentStore shared(Config config) {
    return STORES.computeIfAbsent(config.key(), k -> provider(config.type(),
        GeneSegmentKeyGenerateAlgorithm.SEGMENT_STORE).create(SettingsReader.of(config.props())
            .ownedBy(GeneSegmentKeyGenerateAlgorithm.TYPE)));
  }
}
