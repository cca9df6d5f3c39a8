package io.geneid.client;

import io.geneid.core.internal.Batches;
import io.geneid.core.GeneSpread;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.jspecify.annotations.Nullable;

/**
 * Snowflake ids ({@code /v1/ids}) with one {@link IdBuffer} per gene, created on the gene's first use: an id of a
 * gene's buffer was asked for with that gene and checked to carry it, and is handed out only for that gene. Root rows
 * take their genes from a {@link GeneSpread}, as the library's generator does.
 */
final class SnowflakeIds extends BufferedIds {

  /** The most genes whose buffers the first root id fills at once. */
  static final int PREFETCH_ALL_GENES = 256;

  private volatile @Nullable AtomicReferenceArray<@Nullable IdBuffer> buffers;
  private volatile @Nullable GeneSpread spread;

  SnowflakeIds(GeneIdClient client) {
    super(client);
  }

  @Override
  void run(long gene, long[] into, int from, int count) {
    if (count > client.settings().batchSize()) {
      client.fetchDirect(into, from, count, n -> client.calls().ids(gene, n));
      return;
    }
    buffer((int) gene).take(into, from, count);
  }

  @Override
  long rootId() {
    return one(spread().nextGene());
  }

  @Override
  long[] rootIds(int n) {
    GeneSpread spread = spread();
    int[] genes = new int[n];
    for (int i = 0; i < n; i++) {
      genes[i] = (int) spread.nextGene();
    }
    return Batches.byGene(genes, (gene, into, from, count) -> run(gene, into, from, count));
  }

  /**
   * The spread of root ids, made on the first root id, which also starts the first fetch of every gene's buffer at
   * once: root ids walk all genes, and a caller would otherwise wait for {@code 2^G} first fetches one after another.
   * Up to {@link #PREFETCH_ALL_GENES} genes (G up to 8); above that each gene's first fetch waits for its first use.
   */
  private GeneSpread spread() {
    GeneSpread s = spread;
    if (s == null) {
      synchronized (this) {
        s = spread;
        if (s == null) {
          s = new GeneSpread(layout().geneBits());
          if (layout().geneCount() <= PREFETCH_ALL_GENES) {
            for (int gene = 0; gene < layout().geneCount(); gene++) {
              buffer(gene).prefetch();
            }
          }
          spread = s;
        }
      }
    }
    return s;
  }

  private IdBuffer buffer(int gene) {
    AtomicReferenceArray<@Nullable IdBuffer> all = buffers;
    if (all == null) {
      synchronized (this) {
        all = buffers;
        if (all == null) {
          buffers = all = new AtomicReferenceArray<>((int) layout().geneCount());
        }
      }
    }
    IdBuffer buffer = all.get(gene);
    if (buffer == null) {
      IdBuffer created = client.newBuffer("gene " + gene, n -> client.fetchChunked(n,
          chunk -> client.calls().ids(gene, chunk)));
      if (all.compareAndSet(gene, null, created)) {
        buffer = created;
      } else {
        buffer = all.get(gene);
      }
    }
    return buffer;
  }

  /** Ids buffered over all genes. */
  long buffered() {
    AtomicReferenceArray<@Nullable IdBuffer> all = buffers;
    long sum = 0;
    if (all != null) {
      for (int i = 0; i < all.length(); i++) {
        IdBuffer b = all.get(i);
        sum += b == null ? 0 : b.available();
      }
    }
    return sum;
  }

  void close() {
    AtomicReferenceArray<@Nullable IdBuffer> all = buffers;
    if (all != null) {
      for (int i = 0; i < all.length(); i++) {
        IdBuffer b = all.get(i);
        if (b != null) {
          b.close();
        }
      }
    }
  }

  @Override
  public String toString() {
    return "snowflake ids of " + client;
  }
}
