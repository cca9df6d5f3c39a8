package io.geneid.benchmarks.e2e;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * The rule sets {@link EndToEndBenchmark} compares, as ShardingSphere YAML for one {@link Shape}: logical tables
 * {@code t_order(id, customer_id)} and {@code t_order_item(id, order_id, amount)}, with physical tables numbered
 * across the databases ({@code ds_0} holds {@code t_order_0, t_order_2, ...}, {@code ds_1} holds
 * {@code t_order_1, t_order_3, ...}), so that one modulo of the table count also names the database and every
 * rule set uses every table. Ids come from the rules' key generator.
 */
enum E2eRules {

  /**
   * What ShardingSphere users usually run: built-in {@code SNOWFLAKE} keys, {@code MOD} on the order id for orders
   * and on {@code order_id} for items, so an order's items sit with it.
   */
  USUAL("usual", "built-in `SNOWFLAKE` keys; `MOD` on `t_order.id` and on `t_order_item.order_id`"),
  /** {@link #USUAL} with {@code SNOWFLAKE}'s {@code max-vibration-offset} = shards - 1 (its documented fix). */
  USUAL_VIBRATION("usual-vibration", "as usual, `SNOWFLAKE` with `max-vibration-offset` = shards - 1"),
  /**
   * gene-id's {@code tables} rules: {@code GENE_SNOWFLAKE} keys, {@code GENE_MOD} on the order id, and on
   * {@code id,order_id} (complex strategy, at the database and at the table level) for items, whose ids carry their
   * order's gene.
   */
  GENE("gene", "`GENE_SNOWFLAKE` keys; `GENE_MOD` on `t_order.id` and on `t_order_item.id,order_id` (complex)"),
  /**
   * gene-id's recommended rules (README quick start 2): {@code autoTables} with {@code GENE_SNOWFLAKE} keys,
   * {@code GENE_MOD_AUTO} on the order id and on {@code id,order_id} (one complex strategy) for items:
   * {@link #GENE}'s routing at one level, so ShardingSphere evaluates one complex strategy per statement, not two.
   */
  GENE_AUTO("gene-auto", "`GENE_SNOWFLAKE` keys; `autoTables`, `GENE_MOD_AUTO` on `t_order.id` and on"
      + " `t_order_item.id,order_id` (complex)"),
  /**
   * gene-id's keys and {@code GENE_MOD}, items on a standard strategy on {@code order_id} alone: the usual setup's
   * routing shape with gene ids. A lookup of an item by its id alone then reads every table.
   */
  GENE_STANDARD("gene-standard", "`GENE_SNOWFLAKE` keys; `GENE_MOD` on `t_order.id` and on `t_order_item.order_id`"
      + " (standard)");

  private final String label;
  private final String summary;

  E2eRules(String label, String summary) {
    this.label = label;
    this.summary = summary;
  }

  /** The name used on the command line and in the tables. */
  String label() {
    return label;
  }

  /** One line saying what the rule set is, in markdown. */
  String summary() {
    return summary;
  }

  /** True when the key generator makes gene ids (items are then inserted inside their order's gene scope). */
  boolean gene() {
    return this == GENE || this == GENE_AUTO || this == GENE_STANDARD;
  }

  /**
   * The rule set named {@code label}.
   *
   * @throws IllegalArgumentException naming the label and the known ones
   */
  static E2eRules of(String label) {
    for (E2eRules r : values()) {
      if (r.label.equals(label)) {
        return r;
      }
    }
    throw new IllegalArgumentException("rule set must be one of " + labels() + " but was " + label);
  }

  static List<String> labels() {
    return java.util.Arrays.stream(values()).map(E2eRules::label).collect(Collectors.toList());
  }

  /** Databases and tables per database. */
  record Shape(int databases, int tablesPerDatabase) {
    Shape {
      if (databases < 1 || databases > 8) {
        throw new IllegalArgumentException("databases must be in [1, 8] but was " + databases);
      }
      if (tablesPerDatabase < 1 || tablesPerDatabase > 8) {
        throw new IllegalArgumentException("tablesPerDatabase must be in [1, 8] but was " + tablesPerDatabase);
      }
    }

    /**
     * The shape written {@code DxT}, e.g. {@code 2x4}.
     *
     * @throws IllegalArgumentException naming the text
     */
    static Shape of(String text) {
      String[] parts = text.split("x");
      try {
        if (parts.length == 2) {
          return new Shape(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]));
        }
      } catch (NumberFormatException ignored) {
        // reported below
      }
      throw new IllegalArgumentException("a shape must be <databases>x<tables per database>, e.g. 2x4, but was "
          + text);
    }

    /** Physical tables of one logical table: the shard count. */
    int shards() {
      return databases * tablesPerDatabase;
    }

    /** Table suffixes held by database {@code ds}. */
    List<Integer> tablesOf(int ds) {
      List<Integer> tables = new ArrayList<>();
      for (int t = ds; t < shards(); t += databases) {
        tables.add(t);
      }
      return tables;
    }

    /** The database of a table suffix. */
    int databaseOf(int table) {
      return table % databases;
    }

    @Override
    public String toString() {
      return databases + "x" + tablesPerDatabase;
    }
  }

  /**
   * The ShardingSphere YAML of this rule set over data sources {@code ds_0 ..} of {@code shape}.
   *
   * <p>The usual rule sets are {@code autoTables} with {@code MOD}, as ShardingSphere documents it ({@code MOD} is an
   * auto-table algorithm: ShardingSphere refuses it in {@code tables}); one table index = key % shards, the table
   * {@code t_order_<i>} placed round-robin in {@code ds_<i % databases>}. {@code gene-auto} is the same with
   * {@code GENE_MOD_AUTO} (table = gene % shards). {@code gene} and {@code gene-standard} are {@code tables} with a
   * database and a table strategy ({@code GENE_MOD} is not an auto-table algorithm): database = gene % databases,
   * table = gene % shards, over the same physical tables.
   */
  String yaml(Shape shape) {
    int shards = shape.shards();
    String keyGenerator = switch (this) {
      case USUAL -> "      type: SNOWFLAKE\n";
      case USUAL_VIBRATION -> "      type: SNOWFLAKE\n      props:\n        max-vibration-offset: " + (shards - 1)
          + "\n";
      case GENE, GENE_AUTO, GENE_STANDARD -> "      type: GENE_SNOWFLAKE\n      props:\n        worker-id: \"1\"\n";
    };
    StringBuilder y = new StringBuilder();
    y.append("databaseName: gid_e2e\n");
    y.append("rules:\n- !SHARDING\n");
    if (!gene() || this == GENE_AUTO) {
      String sources = IntStream.range(0, shape.databases()).mapToObj(ds -> "ds_" + ds)
          .collect(Collectors.joining(","));
      String itemStrategy = this == GENE_AUTO
          ? "complex:\n          shardingColumns: id,order_id\n"
          : "standard:\n          shardingColumn: order_id\n";
      y.append("  autoTables:\n");
      y.append("    t_order:\n      actualDataSources: ").append(sources).append('\n');
      y.append("      shardingStrategy:\n        standard:\n          shardingColumn: id\n"
          + "          shardingAlgorithmName: by_table\n");
      y.append("      keyGenerateStrategy:\n        column: id\n        keyGeneratorName: ids\n");
      y.append("    t_order_item:\n      actualDataSources: ").append(sources).append('\n');
      y.append("      shardingStrategy:\n        ").append(itemStrategy)
          .append("          shardingAlgorithmName: by_table\n");
      y.append("      keyGenerateStrategy:\n        column: id\n        keyGeneratorName: ids\n");
      y.append("  shardingAlgorithms:\n");
      y.append("    by_table:\n      type: ").append(this == GENE_AUTO ? "GENE_MOD_AUTO" : "MOD")
          .append("\n      props:\n        sharding-count: ").append(shards).append('\n');
    } else {
      String itemStrategy = this == GENE
          ? "complex:\n          shardingColumns: id,order_id\n"
          : "standard:\n          shardingColumn: order_id\n";
      y.append("  tables:\n");
      y.append("    t_order:\n");
      y.append("      actualDataNodes: ").append(nodes(shape, "t_order")).append('\n');
      y.append("      databaseStrategy:\n        standard:\n          shardingColumn: id\n"
          + "          shardingAlgorithmName: by_database\n");
      y.append("      tableStrategy:\n        standard:\n          shardingColumn: id\n"
          + "          shardingAlgorithmName: by_table\n");
      y.append("      keyGenerateStrategy:\n        column: id\n        keyGeneratorName: ids\n");
      y.append("    t_order_item:\n");
      y.append("      actualDataNodes: ").append(nodes(shape, "t_order_item")).append('\n');
      y.append("      databaseStrategy:\n        ").append(itemStrategy)
          .append("          shardingAlgorithmName: by_database\n");
      y.append("      tableStrategy:\n        ").append(itemStrategy)
          .append("          shardingAlgorithmName: by_table\n");
      y.append("      keyGenerateStrategy:\n        column: id\n        keyGeneratorName: ids\n");
      y.append("  shardingAlgorithms:\n");
      y.append("    by_database:\n      type: GENE_MOD\n      props:\n        sharding-count: ")
          .append(shape.databases()).append('\n');
      y.append("    by_table:\n      type: GENE_MOD\n      props:\n        sharding-count: ").append(shards)
          .append('\n');
    }
    y.append("  keyGenerators:\n    ids:\n").append(keyGenerator);
    y.append("props:\n  sql-show: false\n");
    return y.toString();
  }

  private static String nodes(Shape shape, String table) {
    return IntStream.range(0, shape.databases()).boxed()
        .flatMap(ds -> shape.tablesOf(ds).stream().map(t -> "ds_" + ds + "." + table + "_" + t))
        .collect(Collectors.joining(","));
  }

  @Override
  public String toString() {
    return label.toLowerCase(Locale.ROOT);
  }
}
