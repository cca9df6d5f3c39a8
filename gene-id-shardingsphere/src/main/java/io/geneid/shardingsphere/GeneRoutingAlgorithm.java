package io.geneid.shardingsphere;

import io.geneid.core.GeneIdLayout;

import io.geneid.core.GeneRouting;
import io.geneid.core.settings.SettingsReader;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import org.jspecify.annotations.Nullable;

/**
 * What {@code GENE_MOD} and {@code GENE_MOD_AUTO} share: a {@link GeneRouting} read from {@code sharding-count},
 * {@code gene-bits} and (for {@code GENE_MOD}) {@code gene-divisor}.
 */
abstract class GeneRoutingAlgorithm extends GeneShardingAlgorithm {

  static final String SHARDING_COUNT = GeneRouting.SHARDING_COUNT;
  static final String GENE_BITS = SettingsReader.GENE_BITS;
  static final String GENE_DIVISOR = GeneRouting.GENE_DIVISOR;

  private volatile @Nullable GeneRouting routing;

  /**
   * Checks and keeps the properties of algorithm {@code type}, which accepts {@code allowed}.
   *
   * @throws IllegalArgumentException naming the property and the allowed range
   */
  final void init(String type, Properties props, List<String> allowed) {
    SettingsReader p = AlgorithmProps.of(type, props, allowed);
    int bits = GeneIdLayout.geneBits(p);
    long geneCount = 1L << bits;
    int count = (int) p.requiredLong(SHARDING_COUNT, 1, geneCount);
    int divisor = allowed.contains(GENE_DIVISOR) ? (int) p.longValue(GENE_DIVISOR, 1, geneCount, 1) : 1;
    try {
      this.routing = new GeneRouting(count, divisor, bits);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(type + " properties " + e.getMessage(), e);
    }
    readStringIds(p);
  }

  @Override
  final int index(long gene) {
    return routing().index(gene);
  }

  @Override
  String rule() {
    return routing().toString();
  }

  @Override
  final List<String> targetProblems(Collection<String> targets) {
    return routing().problems(targets);
  }

  @Override
  final String targetOfIndex(Collection<String> targets, int index) {
    return routing().target(targets, index);
  }

  @Override
  final String whyGenesSplit() {
    return "the modulo and would split when the shard count changes";
  }

  /** The routing rule; throws before init. */
  final GeneRouting routing() {
    GeneRouting r = routing;
    if (r == null) {
      throw new IllegalStateException(getType() + " was used before init(Properties)");
    }
    return r;
  }

  @Override
  final int geneBits() {
    GeneRouting r = routing;
    return r == null ? -1 : r.geneBits();
  }
}
