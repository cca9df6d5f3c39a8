package io.geneid.examples;

import io.geneid.core.GeneIdLayout;
import io.geneid.core.GeneIdParts;
import io.geneid.core.snowflake.GeneSnowflakeGenerator;

/**
 * Parents and children with the default layout: each child id carries its parent's gene, so both route to the same
 * shard under {@code gene % shards}.
 */
public final class GeneDemo {
  private static final int SHARDS = 4;

  private GeneDemo() {}

  public static void main(String[] args) {
    GeneIdLayout layout = GeneIdLayout.defaults();
    GeneSnowflakeGenerator ids = GeneSnowflakeGenerator.builder().layout(layout).workerId(7).build();
    System.out.println("layout " + layout + ": " + layout.workerCount() + " workers, " + layout.geneCount()
        + " genes, " + layout.idsPerMillisPerGene() + " ids/ms per gene, lasts until " + layout.lastTimestamp());
    System.out.println("routing: shard = gene % " + SHARDS);
    System.out.println();
    boolean allTogether = true;
    for (int p = 0; p < 4; p++) {
      long parent = ids.nextId();
      print("order", parent, layout);
      for (int c = 0; c < 2; c++) {
        long child = ids.nextIdFor(parent);
        print("  item", child, layout);
        allTogether &= layout.geneOf(child) == layout.geneOf(parent);
      }
    }
    String customer = "customer-42@example.com";
    long byString = ids.nextIdFor(customer);
    System.out.printf("%nstring parent key %s has gene %d (CRC32C & %d)%n", customer, layout.geneOf(customer),
        layout.maxGene());
    print("cart", byString, layout);
    System.out.println();
    System.out.println(allTogether ? "every item carries its order's gene and routes to its order's shard"
        : "MISMATCH: an item does not carry its order's gene");
    if (!allTogether) {
      System.exit(1);
    }
  }

  private static void print(String label, long id, GeneIdLayout layout) {
    GeneIdParts parts = layout.decode(id);
    System.out.printf("%-6s %20d  time=%s worker=%d seq=%d gene=%2d -> shard %d%n", label, id, parts.timestamp(),
        parts.workerId(), parts.sequence(), parts.gene(), parts.gene() % SHARDS);
  }
}
