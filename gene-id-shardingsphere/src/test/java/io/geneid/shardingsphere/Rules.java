package io.geneid.shardingsphere;

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
