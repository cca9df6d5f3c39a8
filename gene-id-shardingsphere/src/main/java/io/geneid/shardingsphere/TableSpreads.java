package io.geneid.shardingsphere;

import io.geneid.core.GeneSpread;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.apache.shardingsphere.infra.algorithm.core.context.AlgorithmSQLContext;
import org.jspecify.annotations.Nullable;

/**
 * One {@link GeneSpread} per logical table for a key generator, so that the root rows of each table balance on their
 * own when one thread inserts into several tables in turn (issue 20). Table names are compared lower-cased, as
 * ShardingSphere matches them; an INSERT that names no table shares one spread.
 */
final class TableSpreads {

  private static final String NO_TABLE = "";

  private final ConcurrentMap<String, GeneSpread> byTable = new ConcurrentHashMap<>();

  /** The spread of the context's logical table over {@code geneBits} gene bits. */
  GeneSpread spreadFor(@Nullable AlgorithmSQLContext context, int geneBits) {
    String table = context == null || context.getTableName() == null ? NO_TABLE
        : context.getTableName().trim().toLowerCase(Locale.ROOT);
    GeneSpread spread = byTable.get(table);
    if (spread == null || spread.geneBits() != geneBits) {
      spread = byTable.compute(table, (t, old) -> old != null && old.geneBits() == geneBits ? old
          : new GeneSpread(geneBits));
    }
    return spread;
  }
}
