package io.geneid.shardingsphere;

import io.geneid.core.bucket.BucketFrozenException;
import io.geneid.core.bucket.BucketMap;
import io.geneid.core.bucket.BucketState;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.apache.shardingsphere.infra.binder.context.statement.SQLStatementContext;
import org.apache.shardingsphere.infra.binder.context.type.TableAvailable;
import org.apache.shardingsphere.infra.metadata.database.ShardingSphereDatabase;
import org.apache.shardingsphere.infra.metadata.database.rule.RuleMetaData;
import org.apache.shardingsphere.sharding.api.config.strategy.sharding.ShardingStrategyConfiguration;
import org.apache.shardingsphere.sharding.route.engine.condition.ShardingCondition;
import org.apache.shardingsphere.sharding.route.engine.condition.engine.ShardingConditionEngine;
import org.apache.shardingsphere.sharding.route.engine.condition.value.ListShardingConditionValue;
import org.apache.shardingsphere.sharding.route.engine.condition.value.ShardingConditionValue;
import org.apache.shardingsphere.sharding.rule.ShardingRule;
import org.apache.shardingsphere.sharding.rule.ShardingTable;
import org.apache.shardingsphere.sharding.spi.ShardingAuditAlgorithm;
import org.apache.shardingsphere.sql.parser.statement.core.statement.SQLStatement;
import org.apache.shardingsphere.sql.parser.statement.core.statement.dml.DeleteStatement;
import org.apache.shardingsphere.sql.parser.statement.core.statement.dml.InsertStatement;
import org.apache.shardingsphere.sql.parser.statement.core.statement.dml.UpdateStatement;

/**
 * ShardingSphere sharding auditor type {@code GENE_BUCKET_FREEZE}: refuses an {@code INSERT}, {@code UPDATE} or
 * {@code DELETE} on a table routed by {@code GENE_BUCKET} when one of its sharding values falls in a
 * {@link BucketState#FROZEN} bucket (a move is copying it), with the retryable {@link BucketFrozenException} naming
 * the bucket, the table and the value; a write whose sharding values cannot be known (no condition on a sharding
 * column) is refused while any bucket of the table is frozen. Reads are never refused: they keep going to the
 * bucket's old node. A {@code GENE_BUCKET} that follows a map store ({@link GeneBucketShardingAlgorithm#follow})
 * also refuses every write while the store has not been reached within its bound.
 *
 * <pre>
 * rules:
 * - !SHARDING
 *   tables:
 *     t_order:
 *       auditStrategy:
 *         auditorNames: [gene_freeze]
 *         allowHintDisable: false
 *   auditors:
 *     gene_freeze:
 *       type: GENE_BUCKET_FREEZE
 * </pre>
 *
 * It has no properties.
 */
public final class GeneBucketFreezeAuditAlgorithm implements ShardingAuditAlgorithm {

  /** The type name used in ShardingSphere configuration. */
  public static final String TYPE = "GENE_BUCKET_FREEZE";

  /** Creates the auditor. */
  public GeneBucketFreezeAuditAlgorithm() {}

  /**
   * Refuses no property.
   *
   * @throws IllegalArgumentException for any property
   */
  @Override
  public void init(Properties props) {
    AlgorithmProps.of(TYPE, props, List.of());
  }

  /**
   * Refuses a write that touches a frozen bucket.
   *
   * @throws BucketFrozenException naming the bucket, the table and the value
   * @throws io.geneid.core.bucket.BucketMapStaleException if a followed map store is stale
   */
  @Override
  public void check(SQLStatementContext context, List<Object> params, RuleMetaData globalRuleMetaData,
      ShardingSphereDatabase database) {
    SQLStatement statement = context.getSqlStatement();
    if (!(statement instanceof InsertStatement || statement instanceof UpdateStatement
        || statement instanceof DeleteStatement) || !(context instanceof TableAvailable tables)) {
      return;
    }
    ShardingRule rule = database.getRuleMetaData().getSingleRule(ShardingRule.class);
    Map<String, List<GeneBucketShardingAlgorithm>> byTable = new LinkedHashMap<>();
    for (String name : tables.getTablesContext().getTableNames()) {
      rule.findShardingTable(name).ifPresent(table -> {
        List<GeneBucketShardingAlgorithm> algorithms = algorithms(rule, table);
        if (!algorithms.isEmpty()) {
          byTable.put(name.toLowerCase(Locale.ROOT), algorithms);
        }
      });
    }
    if (byTable.isEmpty()) {
      return;
    }
    byTable.values().forEach(list -> list.forEach(GeneBucketShardingAlgorithm::checkWritable));
    List<ShardingCondition> conditions = new ShardingConditionEngine(globalRuleMetaData, database, rule)
        .createShardingConditions(context, params);
    Map<String, Boolean> constrained = new LinkedHashMap<>();
    for (ShardingCondition condition : conditions) {
      for (ShardingConditionValue value : condition.getValues()) {
        String table = value.getTableName().toLowerCase(Locale.ROOT);
        List<GeneBucketShardingAlgorithm> algorithms = byTable.get(table);
        if (algorithms == null || !(value instanceof ListShardingConditionValue<?> list)) {
          continue;
        }
        constrained.put(table, true);
        for (Object v : list.getValues()) {
          for (GeneBucketShardingAlgorithm algorithm : algorithms) {
            String where = value.getTableName() + "." + value.getColumnName();
            int bucket = (int) algorithm.gene(where, v);
            BucketMap map = algorithm.map();
            if (map.state(bucket) == BucketState.FROZEN) {
              throw new BucketFrozenException(TYPE + ": bucket " + bucket + " is frozen while it moves (map version "
                  + map.version() + "): " + statementType(statement) + " of " + where + " = " + v
                  + " refused; retry in a few seconds, the write then goes to the bucket's new node", bucket,
                  map.version());
            }
          }
        }
      }
    }
    byTable.forEach((table, algorithms) -> {
      if (!constrained.containsKey(table)) {
        for (GeneBucketShardingAlgorithm algorithm : algorithms) {
          BucketMap map = algorithm.map();
          List<Integer> frozen = map.bucketsIn(BucketState.FROZEN);
          if (!frozen.isEmpty()) {
            throw new BucketFrozenException(TYPE + ": " + statementType(statement) + " of " + table
                + " without a sharding value may touch the frozen buckets " + BucketMap.formatBuckets(frozen)
                + " (map version " + map.version() + ") and is refused; retry when the move is done, or name the"
                + " rows by their sharding column", frozen.get(0), map.version());
          }
        }
      }
    });
  }

  private static String statementType(SQLStatement statement) {
    return statement instanceof InsertStatement ? "INSERT" : statement instanceof UpdateStatement ? "UPDATE"
        : "DELETE";
  }

  private static List<GeneBucketShardingAlgorithm> algorithms(ShardingRule rule, ShardingTable table) {
    List<GeneBucketShardingAlgorithm> result = new ArrayList<>();
    for (ShardingStrategyConfiguration strategy : new ShardingStrategyConfiguration[] {
        rule.getDatabaseShardingStrategyConfiguration(table), rule.getTableShardingStrategyConfiguration(table)}) {
      if (strategy != null && strategy.getShardingAlgorithmName() != null
          && rule.getShardingAlgorithms().get(strategy.getShardingAlgorithmName())
              instanceof GeneBucketShardingAlgorithm bucket) {
        result.add(bucket);
      }
    }
    return result;
  }

  @Override
  public String getType() {
    return TYPE;
  }
}
