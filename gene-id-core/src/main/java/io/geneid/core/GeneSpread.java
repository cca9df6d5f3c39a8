package io.geneid.core;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Chooses the genes of root rows (rows without a parent), so that roots balance over shards.
 *
 * <p>A generator's {@code nextId()} outside a {@link GeneContext} scope takes its gene from its own spread. An
 * integration that knows which table (or entity type) a root row belongs to keeps one spread per table, so that
 * each table balances on its own, whatever order a thread inserts into several tables in.
 *
 * <p>Thread-safe; each thread walks its own cursor.
 */
public final class GeneSpread {

  private final long maxGene;
  private final ThreadLocal<int[]> cursor =
      ThreadLocal.withInitial(() -> new int[] {ThreadLocalRandom.current().nextInt()});

  /**
   * A spread over the {@code 2^geneBits} genes.
   *
   * @throws IllegalArgumentException if geneBits is not in [0, 16]
   */
  public GeneSpread(int geneBits) {
    GeneIdLayout.checkRange("geneBits", geneBits, 0, GeneIdLayout.MAX_GENE_BITS);
    this.maxGene = (1L << geneBits) - 1;
  }

  /** The gene for the next root row of this thread. */
  public long nextGene() {
    int[] c = cursor.get();
    return c[0]++ & maxGene;
  }
}
