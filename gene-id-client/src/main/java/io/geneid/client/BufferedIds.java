package io.geneid.client;

import io.geneid.core.GeneIdGenerator;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.Genes;
import io.geneid.core.internal.Batches;
import io.geneid.core.internal.Scopes;

/**
 * A {@link GeneIdGenerator} over ids bought from the servers: the gene rules, the {@link io.geneid.core.GeneContext}
 * scope and the batches, over one primitive, {@link #run(long, long[], int, int)} (ids of one gene). What differs
 * between snowflake and segment ids is how they are buffered and how root rows get their genes.
 */
abstract class BufferedIds implements GeneIdGenerator {

  final GeneIdClient client;

  BufferedIds(GeneIdClient client) {
    this.client = client;
  }

  /** Copies {@code count} ids carrying {@code gene} into {@code into[from ..]}. */
  abstract void run(long gene, long[] into, int from, int count);

  /** An id for a root row (no scope open). */
  abstract long rootId();

  /** {@code n} ids for root rows (no scope open). */
  abstract long[] rootIds(int n);

  /** The servers' layout. */
  final GeneIdLayout layout() {
    return client.layout();
  }

  final long one(long gene) {
    long[] id = new long[1];
    run(gene, id, 0, 1);
    return id[0];
  }

  @Override
  public long nextId() {
    Object parentKey = Scopes.peek();
    if (parentKey == null) {
      return rootId();
    }
    long id = one(layout().geneOfKey(parentKey));
    Scopes.take(); // taken once the id is made: a call that fails takes no key
    return id;
  }

  @Override
  public long nextId(long gene) {
    long max = layout().maxGene();
    if (gene < 0 || gene > max) {
      throw new IllegalArgumentException("gene must be in [0, " + max + "] but was " + gene);
    }
    return one(gene);
  }

  @Override
  public long nextIdFor(long parentKey) {
    return one(layout().geneOf(parentKey));
  }

  @Override
  public long nextIdFor(String parentKey) {
    return one(layout().geneOf(parentKey));
  }

  @Override
  public long nextIdForKey(Object parentKey) {
    return one(layout().geneOfKey(parentKey));
  }

  @Override
  public long[] nextIds(int n) {
    Batches.checkCount(n);
    Object first = Scopes.peek();
    if (first == null) {
      return rootIds(n);
    }
    int geneBits = layout().geneBits();
    int[] genes = new int[n];
    int firstGene = (int) Genes.ofKey(first, geneBits);
    genes[0] = firstGene;
    for (int i = 1; i < n; i++) {
      Object key = Scopes.peek(i);
      genes[i] = key == first ? firstGene : (int) Genes.ofKey(key, geneBits);
    }
    long[] ids = Batches.byGene(genes, (gene, into, from, count) -> run(gene, into, from, count));
    Scopes.take(n);
    return ids;
  }

  @Override
  public long[] nextIdsFor(long parentKey, int n) {
    Batches.checkCount(n);
    long[] ids = new long[n];
    run(layout().geneOf(parentKey), ids, 0, n);
    return ids;
  }

  @Override
  public long getGene(long id) {
    return layout().geneOf(id);
  }

  @Override
  public int geneBits() {
    return layout().geneBits();
  }
}
