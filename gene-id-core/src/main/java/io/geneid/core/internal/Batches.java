package io.geneid.core.internal;

import java.util.Arrays;
import java.util.function.LongSupplier;
import java.util.function.ToLongFunction;

/**
 * Not API: what the generators' {@code nextIds} share: the check of the count, the genes of a batch (a
 * {@link io.geneid.core.GeneContext} scope's keys or a spread's genes, as the same number of {@code nextId()} calls
 * would take them), and the grouping of a batch by gene so that each gene's ids are reserved as one run.
 */
public final class Batches {

  /** Issues {@code count} ids of {@code gene} into {@code into[from .. from + count - 1]}, ascending. */
  @FunctionalInterface
  public interface RunIssuer {
    void issue(int gene, long[] into, int from, int count);
  }

  /** The largest batch: {@code io.geneid.core.GeneIdGenerator.MAX_BATCH}. */
  public static final int MAX_BATCH = 65_536;

  private Batches() {}

  /**
   * Checks a batch size.
   *
   * @throws IllegalArgumentException {@code "n must be in [1, 65536] but was 0"}
   */
  public static void checkCount(int n) {
    Checks.range("n", n, 1, MAX_BATCH);
  }

  /**
   * The genes of the next {@code n} ids of this thread without taking any scope key: the innermost
   * {@link io.geneid.core.GeneContext} scope's keys (the same one {@code n} times, or the next {@code n} of a per-row
   * scope, each key's gene by {@code geneOfKey}), or, outside every scope, {@code n} genes of {@code nextGene}. Take
   * the keys with {@link Scopes#take(int)} once the ids are made, if {@link Scopes#peek()} was not null.
   *
   * @throws IllegalStateException if a per-row scope holds fewer than {@code n} keys, naming both counts
   */
  public static int[] genes(int n, ToLongFunction<Object> geneOfKey, LongSupplier nextGene) {
    int[] genes = new int[n];
    Object first = Scopes.peek();
    if (first == null) {
      for (int i = 0; i < n; i++) {
        genes[i] = (int) nextGene.getAsLong();
      }
      return genes;
    }
    int gene = (int) geneOfKey.applyAsLong(first);
    genes[0] = gene;
    for (int i = 1; i < n; i++) {
      Object key = Scopes.peek(i);
      genes[i] = key == first ? gene : (int) geneOfKey.applyAsLong(key);
    }
    return genes;
  }

  /** {@code n} times {@code gene}. */
  public static int[] same(int gene, int n) {
    int[] genes = new int[n];
    Arrays.fill(genes, gene);
    return genes;
  }

  /**
   * One id per entry of {@code genes}, in order, each gene's ids reserved by one {@link RunIssuer} call (so one
   * gene's ids ascend in the order of its entries).
   */
  public static long[] byGene(int[] genes, RunIssuer issuer) {
    int n = genes.length;
    long[] out = new long[n];
    int first = genes[0];
    boolean one = true;
    for (int i = 1; i < n && one; i++) {
      one = genes[i] == first;
    }
    if (one) {
      issuer.issue(first, out, 0, n);
      return out;
    }
    // sort (gene, position) pairs: runs of one gene, positions ascending within each
    long[] keyed = new long[n];
    for (int i = 0; i < n; i++) {
      keyed[i] = ((long) genes[i] << 32) | i;
    }
    Arrays.sort(keyed);
    long[] run = new long[n];
    for (int i = 0; i < n; ) {
      int gene = (int) (keyed[i] >>> 32);
      int j = i + 1;
      while (j < n && (int) (keyed[j] >>> 32) == gene) {
        j++;
      }
      issuer.issue(gene, run, 0, j - i);
      for (int k = i; k < j; k++) {
        out[(int) keyed[k]] = run[k - i];
      }
      i = j;
    }
    return out;
  }
}
