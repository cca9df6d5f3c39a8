package io.geneid.shardingsphere;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Properties;
import javax.sql.DataSource;
import org.apache.shardingsphere.driver.jdbc.core.connection.ShardingSphereConnection;
import org.apache.shardingsphere.infra.algorithm.keygen.core.KeyGenerateAlgorithm;
import org.apache.shardingsphere.sharding.rule.ShardingRule;

/** Rules YAML for the tests: t_order by id, t_item by (id, order_id), over ds_0..ds_1 x 2 tables. */
final class Rules {
  private Rules() {}

  /** The standard setup: GENE_SNOWFLAKE ids, GENE_MOD at both levels, table level with gene-divisor 2. */
  static String gene() {
    return yaml("GENE_SNOWFLAKE", "worker-id: 1", "sharding-count: 2", "sharding-count: 2\n        gene-divisor: 2");
  }

  /** The same routing with ShardingSphere's own SNOWFLAKE key generator. */
  static String snowflake() {
    return yaml("SNOWFLAKE", "{}", "sharding-count: 2", "sharding-count: 2\n        gene-divisor: 2");
  }

  /** The standard routing (as {@link #gene()}) with another key generator: type and YAML props lines. */
  static String withKeyGenerator(String type, String propsLines) {
    return yaml(type, propsLines, "sharding-count: 2", "sharding-count: 2\n        gene-divisor: 2");
  }

  /** {@code key: value} lines as Properties of strings (a double-quoted YAML value without its quotes). */
  static Properties properties(String propsLines) {
    Properties props = new Properties();
    for (String line : propsLines.split("\n")) {
      int colon = line.indexOf(':');
      String value = line.substring(colon + 1).trim();
      if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
        value = value.substring(1, value.length() - 1);
      }
      props.setProperty(line.substring(0, colon).trim(), value);
    }
    return props;
  }

  /** The key generator instance the running rule of a ShardingSphere data source uses. */
  static KeyGenerateAlgorithm keyGenerator(DataSource sharded, String name) throws SQLException {
    try (Connection c = sharded.getConnection()) {
      ShardingSphereConnection ss = c.unwrap(ShardingSphereConnection.class);
      ShardingRule rule = ss.getContextManager().getDatabase(ss.getCurrentDatabaseName()).getRuleMetaData()
          .getSingleRule(ShardingRule.class);
      return rule.getKeyGenerators().get(name);
    }
  }

  /**
   * gene-id's auto-table setup: {@code autoTables} over {@code dataSources} (e.g. {@code ds_${0..1}}), t_order by a
   * standard strategy on id, t_item by one complex strategy on id,order_id, one {@code algorithmType} algorithm
   * ({@code GENE_MOD_AUTO}) with {@code algorithmProps} lines (continued lines indented by 8), GENE_SNOWFLAKE ids.
   */
  static String auto(String dataSources, String algorithmType, String algorithmProps) {
    return """
        databaseName: gene_auto
        rules:
        - !SHARDING
          autoTables:
            t_order:
              actualDataSources: %1$s
              shardingStrategy:
                standard:
                  shardingColumn: id
                  shardingAlgorithmName: gene_auto
              keyGenerateStrategy:
                column: id
                keyGeneratorName: ids
            t_item:
              actualDataSources: %1$s
              shardingStrategy:
                complex:
                  shardingColumns: id,order_id
                  shardingAlgorithmName: gene_auto
              keyGenerateStrategy:
                column: id
                keyGeneratorName: ids
          shardingAlgorithms:
            gene_auto:
              type: %2$s
              props:
                %3$s
          keyGenerators:
            ids:
              type: GENE_SNOWFLAKE
              props:
                worker-id: 1
        props:
          sql-show: false
        """.formatted(dataSources, algorithmType, algorithmProps);
  }

  static String yaml(String keyGeneratorType, String keyGeneratorProps, String dbProps, String tableProps) {
    String keyProps = keyGeneratorProps.equals("{}") ? " {}" : "\n        " + keyGeneratorProps.replace("\n",
        "\n        ");
    return """
        databaseName: gene_e2e
        rules:
        - !SHARDING
          tables:
            t_order:
              actualDataNodes: ds_${0..1}.t_order_${0..1}
              databaseStrategy:
                standard:
                  shardingColumn: id
                  shardingAlgorithmName: gene_db
              tableStrategy:
                standard:
                  shardingColumn: id
                  shardingAlgorithmName: gene_table
              keyGenerateStrategy:
                column: id
                keyGeneratorName: ids
            t_item:
              actualDataNodes: ds_${0..1}.t_item_${0..1}
              databaseStrategy:
                complex:
                  shardingColumns: id,order_id
                  shardingAlgorithmName: gene_db
              tableStrategy:
                complex:
                  shardingColumns: id,order_id
                  shardingAlgorithmName: gene_table
              keyGenerateStrategy:
                column: id
                keyGeneratorName: ids
          shardingAlgorithms:
            gene_db:
              type: GENE_MOD
              props:
                %s
            gene_table:
              type: GENE_MOD
              props:
                %s
          keyGenerators:
            ids:
              type: %s
              props:%s
        props:
          sql-show: false
        """.formatted(dbProps, tableProps, keyGeneratorType, keyProps);
  }
}
