package io.geneid.benchmarks;

import io.geneid.core.GeneIdLayout;

/** The two gene-id layouts measured: the default one and a classic Snowflake without genes. */
public final class Layouts {

  /** {@link GeneIdLayout#defaults()}: T=41, W=8, S=8, G=6. */
  public static final String DEFAULT = "default";
  /** A classic Snowflake: T=41, W=10, S=12, G=0, the split of ShardingSphere, MyBatis-Plus, CosId and Hutool. */
  public static final String CLASSIC = "classic";

  private Layouts() {}

  /** The layout named {@link #DEFAULT} or {@link #CLASSIC}. */
  public static GeneIdLayout named(String name) {
    switch (name) {
      case DEFAULT:
        return GeneIdLayout.defaults();
      case CLASSIC:
        return GeneIdLayout.builder().timestampBits(41).workerBits(10).sequenceBits(12).geneBits(0).build();
      default:
        throw new IllegalArgumentException("layout must be one of [" + DEFAULT + ", " + CLASSIC + "] but was " + name);
    }
  }
}
