package io.geneid.shardingsphere;

import io.geneid.core.IntervalRouting;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;
import javax.sql.DataSource;
import org.apache.shardingsphere.driver.jdbc.core.connection.ShardingSphereConnection;
import org.apache.shardingsphere.infra.algorithm.core.config.AlgorithmConfiguration;
import org.apache.shardingsphere.infra.algorithm.keygen.core.KeyGenerateAlgorithm;
import org.apache.shardingsphere.infra.datanode.DataNode;
import org.apache.shardingsphere.infra.expr.core.InlineExpressionParserFactory;
import org.apache.shardingsphere.infra.metadata.database.ShardingSphereDatabase;
import org.apache.shardingsphere.sharding.api.config.rule.ShardingAutoTableRuleConfiguration;
import org.apache.shardingsphere.sharding.api.config.strategy.sharding.ComplexShardingStrategyConfiguration;
import org.apache.shardingsphere.sharding.api.config.strategy.sharding.NoneShardingStrategyConfiguration;
import org.apache.shardingsphere.sharding.api.config.strategy.sharding.ShardingStrategyConfiguration;
import org.apache.shardingsphere.sharding.api.config.strategy.sharding.StandardShardingStrategyConfiguration;
import org.apache.shardingsphere.sharding.rule.ShardingRule;
import org.apache.shardingsphere.sharding.rule.ShardingTable;
import org.apache.shardingsphere.sharding.spi.ShardingAlgorithm;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks a ShardingSphere data source for gene-sharding mistakes that its own start-up does not see, by routing
 * every gene through the configured {@code GENE_MOD} and {@code GENE_BUCKET} algorithms:
 * <ul>
 *   <li>a configured data node no gene can reach under {@code GENE_MOD} (the "diagonal": the same
 *       {@code sharding-count} at database and table level with table suffixes that repeat in every database; or
 *       more targets than {@code sharding-count}); under {@code GENE_BUCKET} an empty node is a new shard waiting
 *       for buckets, and is only logged;
 *   <li>a gene that routes to an index for which no target exists;
 *   <li>{@code gene-bits} that differ between a table's {@code GENE_SNOWFLAKE} or {@code GENE_SEGMENT} key generator
 *       and its {@code GENE_MOD} or {@code GENE_BUCKET} algorithms, or between its database and table algorithms.
 * </ul>
 * Call it right after the data source is created, so a bad configuration stops the application before the first
 * row is written:
 *
 * <pre>{@code
 * DataSource dataSource = YamlShardingSphereDataSourceFactory.createDataSource(yamlFile);
 * GeneShardingCheck.verify(dataSource);
 * }</pre>
 *
 * For an auto table routed by {@code GENE_MOD_AUTO} it also reports a {@code sharding-count} that leaves an
 * {@code actualDataSources} entry without a table, or gives the data sources unequal numbers of tables.
 *
 * <p>For {@code GENE_INTERVAL} it reports a layout that differs from the key generator's (the intervals of its ids
 * would be wrong), segment ids (they carry no time), and strategies whose columns are not one own id plus the
 * algorithm's {@code parent-columns}; and {@link #warnings(DataSource, Clock)} lists the tables of the current and the
 * next interval that {@code actualDataNodes} or a database lacks ({@link #verify} logs them: a month without tables
 * refuses its rows, but the application may create them before then).
 *
 * <p>Tables routed by other algorithms are left alone.
 */
public final class GeneShardingCheck {

  private static final Logger LOG = LoggerFactory.getLogger(GeneShardingCheck.class);

  private GeneShardingCheck() {}

  /**
   * Throws if {@link #problems(DataSource)} finds any.
   *
   * @return {@code dataSource}, for chaining
   * @throws IllegalStateException listing every problem
   */
  public static DataSource verify(DataSource dataSource) {
    List<String> problems = problems(dataSource);
    if (!problems.isEmpty()) {
      throw new IllegalStateException("gene sharding configuration is wrong:\n  - " + String.join("\n  - ",
          problems));
    }
    for (String warning : warnings(dataSource, Clock.systemUTC())) {
      LOG.warn("{}", warning);
    }
    return dataSource;
  }

  /**
   * What will go wrong soon with the {@code GENE_INTERVAL} tables of a ShardingSphere data source: for every logic
   * table routed by {@code GENE_INTERVAL} at the table level and every data source of it, the table of the interval
   * holding {@code clock}'s now and of the next interval, when {@code actualDataNodes} does not list it or the
   * database does not hold it; and a now past {@code datetime-upper}. One sentence each; empty when none.
   *
   * @throws IllegalArgumentException if {@code dataSource} is not a ShardingSphere-JDBC data source
   * @throws IllegalStateException if no connection could be opened, with the cause
   */
  public static List<String> warnings(DataSource dataSource, Clock clock) {
    return withDatabase(dataSource, (database, rule) -> intervalWarnings(database, rule, clock.instant()));
  }

  /**
   * The problems of a ShardingSphere data source's gene sharding, one sentence each; empty when none. A data source
   * built lazily (a pool over {@code jdbc:shardingsphere:}) that refuses to start because its rule disagrees with
   * itself on the gene bits ({@link GeneShardingCheckListener}) has those disagreements as its problems.
   *
   * @throws IllegalArgumentException if {@code dataSource} is not a ShardingSphere-JDBC data source
   * @throws IllegalStateException if no connection could be opened, with the cause
   */
  public static List<String> problems(DataSource dataSource) {
    try {
      return withRule(dataSource, GeneShardingCheck::problems);
    } catch (RuntimeException e) {
      return GeneShardingCheckListener.refused(e).orElseThrow(() -> e);
    }
  }

  /**
   * A gene algorithm of a sharding rule, for comparing its gene bits with those of the ids written through it (the
   * ids of an application's own generator, which no key generator of the rule describes).
   *
   * @param name its name under {@code shardingAlgorithms}
   * @param algorithm its type and settings, e.g. {@code GENE_MOD_AUTO[sharding-count=4, gene-bits=6]}
   * @param geneBits the gene bits it reads
   * @param geneBitsSet whether its {@code props} set {@code gene-bits} (else it reads the default, 6)
   * @param tables the logic tables it routes, at the database or the table level
   */
  public record GeneAlgorithm(String name, String algorithm, int geneBits, boolean geneBitsSet,
      List<String> tables) {}

  /**
   * The {@code GENE_MOD}, {@code GENE_MOD_AUTO} and {@code GENE_BUCKET} algorithms of a ShardingSphere data source's
   * sharding rule that route at least one table; empty when it has none.
   *
   * @throws IllegalArgumentException if {@code dataSource} is not a ShardingSphere-JDBC data source
   * @throws IllegalStateException if no connection could be opened, with the cause
   */
  public static List<GeneAlgorithm> geneAlgorithms(DataSource dataSource) {
    return withRule(dataSource, rule -> {
      Map<String, List<String>> tables = new LinkedHashMap<>();
      for (ShardingTable table : rule.getShardingTables().values()) {
        for (ShardingStrategyConfiguration strategy : new ShardingStrategyConfiguration[] {
            rule.getDatabaseShardingStrategyConfiguration(table), rule.getTableShardingStrategyConfiguration(table)}) {
          if (geneAlgorithm(rule, strategy) != null) {
            List<String> names = tables.computeIfAbsent(strategy.getShardingAlgorithmName(), n -> new ArrayList<>());
            if (!names.contains(table.getLogicTable())) {
              names.add(table.getLogicTable());
            }
          }
        }
      }
      List<GeneAlgorithm> result = new ArrayList<>();
      tables.forEach((name, logicTables) -> {
        GeneShardingAlgorithm algorithm = (GeneShardingAlgorithm) rule.getShardingAlgorithms().get(name);
        AlgorithmConfiguration config = rule.getConfiguration().getShardingAlgorithms().get(name);
        boolean set = config != null && config.getProps().containsKey(GeneRoutingAlgorithm.GENE_BITS);
        result.add(new GeneAlgorithm(name, algorithm.toString(), algorithm.geneBits(), set, List.copyOf(logicTables)));
      });
      return result;
    });
  }

  /** {@code check} applied to the sharding rule of a ShardingSphere data source, or to none: an empty list. */
  private static <T> List<T> withRule(DataSource dataSource, Function<ShardingRule, List<T>> check) {
    return withDatabase(dataSource, (database, rule) -> check.apply(rule));
  }

  /** {@code check} applied to the database and sharding rule of a ShardingSphere data source, or to none: empty. */
  private static <T> List<T> withDatabase(DataSource dataSource,
      BiFunction<ShardingSphereDatabase, ShardingRule, List<T>> check) {
    try (Connection connection = dataSource.getConnection()) {
      if (!connection.isWrapperFor(ShardingSphereConnection.class)) {
        throw new IllegalArgumentException("not a ShardingSphere-JDBC data source: " + dataSource);
      }
      ShardingSphereConnection ss = connection.unwrap(ShardingSphereConnection.class);
      ShardingSphereDatabase database = ss.getContextManager().getDatabase(ss.getCurrentDatabaseName());
      return database.getRuleMetaData().findSingleRule(ShardingRule.class).map(rule -> check.apply(database, rule))
          .orElse(List.of());
    } catch (SQLException e) {
      throw new IllegalStateException("cannot open a connection to check the gene sharding of " + dataSource, e);
    }
  }

  private static List<String> problems(ShardingRule rule) {
    List<String> problems = new ArrayList<>();
    for (ShardingTable table : rule.getShardingTables().values()) {
      checkTable(rule, table, problems);
      checkIntervals(rule, table, problems);
    }
    return problems;
  }

  private static void checkTable(ShardingRule rule, ShardingTable table, List<String> problems) {
    String name = table.getLogicTable();
    ShardingStrategyConfiguration dbStrategy = rule.getDatabaseShardingStrategyConfiguration(table);
    ShardingStrategyConfiguration tableStrategy = rule.getTableShardingStrategyConfiguration(table);
    GeneShardingAlgorithm dbAlgorithm = geneAlgorithm(rule, dbStrategy);
    GeneShardingAlgorithm tableAlgorithm = geneAlgorithm(rule, tableStrategy);
    if (dbAlgorithm == null && tableAlgorithm == null) {
      return;
    }
    if (!geneBitsAgree(rule, table, dbAlgorithm, tableAlgorithm, problems)) {
      return;
    }
    boolean dbSimulable = dbAlgorithm != null || isNone(dbStrategy);
    boolean tableSimulable = tableAlgorithm != null || isNone(tableStrategy);
    if (!dbSimulable || !tableSimulable) {
      return; // the other level uses an algorithm we cannot reason about
    }
    if (tableAlgorithm != null && tableAlgorithm.targetsSplitOverDataSources()) {
      checkAutoTable(rule, table, tableAlgorithm, problems);
      return;
    }
    Set<String> targetProblems = new LinkedHashSet<>();
    if (dbAlgorithm != null) {
      targetProblems.addAll(dbAlgorithm.targetProblems(table.getActualDataSourceNames()));
    }
    if (tableAlgorithm != null) {
      for (String dataSource : table.getActualDataSourceNames()) {
        targetProblems.addAll(tableAlgorithm.targetProblems(table.getActualTableNames(dataSource)));
      }
    }
    targetProblems.forEach(p -> problems.add(name + ": " + p));
    int geneBits = (dbAlgorithm != null ? dbAlgorithm : tableAlgorithm).geneBits();
    Set<DataNode> reached = new LinkedHashSet<>();
    Set<String> failures = new LinkedHashSet<>();
    for (long gene = 0; gene < 1L << geneBits; gene++) {
      Collection<String> dataSources = table.getActualDataSourceNames();
      try {
        Collection<String> routedDataSources = dbAlgorithm == null ? dataSources
            : List.of(dbAlgorithm.targetOfGene(dataSources, gene));
        for (String dataSource : routedDataSources) {
          Collection<String> tables = table.getActualTableNames(dataSource);
          Collection<String> routedTables = tableAlgorithm == null ? tables
              : List.of(tableAlgorithm.targetOfGene(tables, gene));
          routedTables.forEach(t -> reached.add(new DataNode(dataSource, t)));
        }
      } catch (IllegalStateException e) {
        failures.add(e.getMessage());
      }
    }
    failures.forEach(f -> problems.add(name + ": " + f));
    List<String> unreachable = new ArrayList<>();
    for (DataNode node : table.getActualDataNodes()) {
      if (!reached.contains(new DataNode(node.getDataSourceName(), node.getTableName()))) {
        unreachable.add(node.getDataSourceName() + "." + node.getTableName());
      }
    }
    if (!unreachable.isEmpty() && (dbAlgorithm instanceof GeneBucketShardingAlgorithm
        || tableAlgorithm instanceof GeneBucketShardingAlgorithm)) {
      // a bucket map may leave a node empty on purpose: a new shard before buckets move to it
      LOG.info("{}: no bucket routes to {} yet (database {}, table {})", name, unreachable, describe(dbAlgorithm),
          describe(tableAlgorithm));
    } else if (!unreachable.isEmpty()) {
      problems.add(name + ": no gene ever routes to " + unreachable + " (database " + describe(dbAlgorithm)
          + ", table " + describe(tableAlgorithm) + "); with table suffixes that repeat in every database give the"
          + " table level gene-divisor = the number of databases");
    }
    if (unreachable.isEmpty() && failures.isEmpty()) {
      LOG.debug("{}: every gene routes to a configured node and every node is reached", name);
    }
  }

  /**
   * The gene-bits disagreements of a sharding rule: a table's key generator against its gene algorithms, or its
   * database algorithm against its table algorithm. Unlike the other problems these never depend on what the
   * application does: ids the rule issues itself would route by the wrong bits. {@link GeneShardingCheckListener}
   * refuses a data source that has any.
   */
  static List<String> geneBitsProblems(ShardingRule rule) {
    List<String> problems = new ArrayList<>();
    for (ShardingTable table : rule.getShardingTables().values()) {
      GeneShardingAlgorithm dbAlgorithm = geneAlgorithm(rule, rule.getDatabaseShardingStrategyConfiguration(table));
      GeneShardingAlgorithm tableAlgorithm = geneAlgorithm(rule, rule.getTableShardingStrategyConfiguration(table));
      if (dbAlgorithm != null || tableAlgorithm != null) {
        geneBitsAgree(rule, table, dbAlgorithm, tableAlgorithm, problems);
      }
    }
    return problems;
  }

  /** Adds the gene-bits disagreements of a table to {@code problems}; false when its two levels disagree. */
  private static boolean geneBitsAgree(ShardingRule rule, ShardingTable table,
      @Nullable GeneShardingAlgorithm dbAlgorithm, @Nullable GeneShardingAlgorithm tableAlgorithm,
      List<String> problems) {
    String name = table.getLogicTable();
    KeyGenerateAlgorithm keyGenerator = table.getKeyGeneratorName() == null ? rule.getDefaultKeyGenerateAlgorithm()
        : rule.getKeyGenerators().get(table.getKeyGeneratorName());
    int keyBits = keyGenerator instanceof GeneSnowflakeKeyGenerateAlgorithm
        ? ((GeneSnowflakeKeyGenerateAlgorithm) keyGenerator).layout().geneBits()
        : keyGenerator instanceof GeneSegmentKeyGenerateAlgorithm
            ? ((GeneSegmentKeyGenerateAlgorithm) keyGenerator).geneBits()
            : keyGenerator instanceof GeneServerKeyGenerateAlgorithm
                ? ((GeneServerKeyGenerateAlgorithm) keyGenerator).geneBits() : -1;
    if (keyBits >= 0 && table.getGenerateKeyColumn().isPresent()) {
      for (GeneShardingAlgorithm algorithm : new GeneShardingAlgorithm[] {dbAlgorithm, tableAlgorithm}) {
        if (algorithm != null && algorithm.geneBits() != keyBits) {
          problems.add(name + ": key generator '" + table.getKeyGeneratorName() + "' issues ids with gene-bits="
              + keyBits + " but " + algorithm + " reads gene-bits=" + algorithm.geneBits()
              + "; set the same gene-bits on both");
        }
      }
    }
    if (dbAlgorithm != null && tableAlgorithm != null && dbAlgorithm.geneBits() != tableAlgorithm.geneBits()) {
      problems.add(name + ": database algorithm " + dbAlgorithm + " and table algorithm " + tableAlgorithm
          + " read different gene-bits");
      return false;
    }
    return true;
  }

  /**
   * An auto table ({@code GENE_MOD_AUTO}): ShardingSphere made tables {@code _0 .. _<sharding-count - 1>}, table
   * {@code i} in {@code actualDataSources[i % n]}. Every data source should hold as many tables, and every gene
   * route to a table.
   */
  private static void checkAutoTable(ShardingRule rule, ShardingTable table, GeneShardingAlgorithm algorithm,
      List<String> problems) {
    String name = table.getLogicTable();
    List<String> configured = autoTableDataSources(rule, name);
    Map<String, Integer> tablesPerDataSource = new LinkedHashMap<>();
    configured.forEach(ds -> tablesPerDataSource.put(ds, 0));
    table.getActualDataNodes().forEach(n -> tablesPerDataSource.merge(n.getDataSourceName(), 1, Integer::sum));
    int tables = table.getActualDataNodes().size();
    int dataSources = tablesPerDataSource.size();
    List<String> empty = tablesPerDataSource.entrySet().stream().filter(e -> e.getValue() == 0)
        .map(Map.Entry::getKey).toList();
    if (!empty.isEmpty()) {
      problems.add(name + ": " + algorithm + " makes " + tables + " tables for the " + dataSources
          + " actualDataSources " + tablesPerDataSource.keySet() + ", so " + empty + " hold none; give sharding-count"
          + " a multiple of " + dataSources);
    } else if (tables % dataSources != 0) {
      problems.add(name + ": " + algorithm + " makes " + tables + " tables for the " + dataSources
          + " actualDataSources, so they hold " + tablesPerDataSource + " tables and take rows unevenly; give"
          + " sharding-count a multiple of " + dataSources);
    }
    List<String> names = table.getActualDataNodes().stream().map(DataNode::getTableName).toList();
    algorithm.targetProblems(names).forEach(p -> problems.add(name + ": " + p));
    Set<String> reached = new LinkedHashSet<>();
    Set<String> failures = new LinkedHashSet<>();
    for (long gene = 0; gene < 1L << algorithm.geneBits(); gene++) {
      try {
        reached.add(algorithm.targetOfGene(names, gene));
      } catch (IllegalStateException e) {
        failures.add(e.getMessage());
      }
    }
    failures.forEach(f -> problems.add(name + ": " + f));
    List<String> unreachable = table.getActualDataNodes().stream().filter(n -> !reached.contains(n.getTableName()))
        .map(n -> n.getDataSourceName() + "." + n.getTableName()).toList();
    if (!unreachable.isEmpty()) {
      problems.add(name + ": no gene ever routes to " + unreachable + " (" + algorithm + ")");
    }
  }

  /** The data sources an auto table was configured over: its actualDataSources, else every data source. */
  private static List<String> autoTableDataSources(ShardingRule rule, String logicTable) {
    for (ShardingAutoTableRuleConfiguration auto : rule.getConfiguration().getAutoTables()) {
      if (auto.getLogicTable().equalsIgnoreCase(logicTable)) {
        String expression = auto.getActualDataSources();
        return expression == null || expression.isBlank() ? List.copyOf(rule.getDataSourceNames())
            : InlineExpressionParserFactory.newInstance(expression).splitAndEvaluate();
      }
    }
    return List.copyOf(rule.getDataSourceNames());
  }

  // ---------------------------------------------------------------- GENE_INTERVAL

  /**
   * A table's {@code GENE_INTERVAL} algorithms: the layout they read is the key generator's, and each strategy has
   * one column of the row's own id, the others among {@code parent-columns}.
   */
  private static void checkIntervals(ShardingRule rule, ShardingTable table, List<String> problems) {
    String name = table.getLogicTable();
    for (ShardingStrategyConfiguration strategy : new ShardingStrategyConfiguration[] {
        rule.getDatabaseShardingStrategyConfiguration(table), rule.getTableShardingStrategyConfiguration(table)}) {
      GeneIntervalShardingAlgorithm algorithm = intervalAlgorithm(rule, strategy);
      if (algorithm == null) {
        continue;
      }
      String algorithmName = "'" + strategy.getShardingAlgorithmName() + "'";
      KeyGenerateAlgorithm keyGenerator = table.getKeyGeneratorName() == null ? rule.getDefaultKeyGenerateAlgorithm()
          : rule.getKeyGenerators().get(table.getKeyGeneratorName());
      if (table.getGenerateKeyColumn().isPresent()
          && keyGenerator instanceof GeneSnowflakeKeyGenerateAlgorithm snowflake
          && !snowflake.layout().equals(algorithm.routing().layout())) {
        problems.add(name + ": key generator '" + table.getKeyGeneratorName() + "' issues ids of "
            + snowflake.layout() + " but GENE_INTERVAL " + algorithmName + " reads their time as "
            + algorithm.routing().layout() + ", so it would put rows in the wrong intervals; give it the same epoch,"
            + " timestamp-bits, worker-bits, sequence-bits and gene-bits");
      } else if (table.getGenerateKeyColumn().isPresent()
          && keyGenerator instanceof GeneSegmentKeyGenerateAlgorithm) {
        problems.add(name + ": key generator '" + table.getKeyGeneratorName() + "' issues segment ids, which carry"
            + " no time, but GENE_INTERVAL " + algorithmName + " routes by the time of the id");
      }
      List<String> columns = new ArrayList<>();
      if (strategy instanceof ComplexShardingStrategyConfiguration complex) {
        for (String c : complex.getShardingColumns().split(",")) {
          if (!c.isBlank()) {
            columns.add(c.trim());
          }
        }
      } else if (strategy instanceof StandardShardingStrategyConfiguration standard) {
        columns.add(standard.getShardingColumn());
      } else {
        continue; // hint: the values are ids
      }
      List<String> own = columns.stream().filter(c -> !algorithm.parentColumns()
          .contains(c.toLowerCase(Locale.ROOT))).toList();
      if (own.size() != 1) {
        problems.add(name + ": the " + (strategy instanceof ComplexShardingStrategyConfiguration ? "complex"
            : "standard") + " strategy on " + columns + " routes by GENE_INTERVAL " + algorithmName + " with "
            + GeneIntervalShardingAlgorithm.PARENT_COLUMNS + " " + algorithm.parentColumns() + ", so " + (own.isEmpty()
            ? "no column" : own.size() + " columns " + own) + " would be read as the row's own id; exactly one must"
            + " be (list the columns that hold a parent's id in " + GeneIntervalShardingAlgorithm.PARENT_COLUMNS
            + (strategy instanceof StandardShardingStrategyConfiguration ? ", and route a parent column with the"
            + " complex strategy" : "") + ")");
      }
    }
  }

  private static List<String> intervalWarnings(ShardingSphereDatabase database, ShardingRule rule, Instant now) {
    List<String> warnings = new ArrayList<>();
    for (ShardingTable table : rule.getShardingTables().values()) {
      GeneIntervalShardingAlgorithm algorithm = intervalAlgorithm(rule,
          rule.getTableShardingStrategyConfiguration(table));
      if (algorithm == null) {
        continue;
      }
      IntervalRouting routing = algorithm.routing();
      long current = routing.intervalAt(now);
      if (current > routing.lastInterval()) {
        warnings.add(table.getLogicTable() + ": now (" + now + ") lies after " + IntervalRouting.DATETIME_UPPER + " "
            + routing.upper() + " of " + algorithm + ": every new row is refused; raise it and add the tables");
        continue;
      }
      for (long interval = Math.max(0, current); interval <= current + 1; interval++) {
        if (!routing.inRange(interval)) {
          continue;
        }
        String when = (interval == current ? "the current interval " : "the next interval ")
            + routing.suffix(interval) + " (from " + routing.start(interval) + ")";
        for (String dataSource : table.getActualDataSourceNames()) {
          String listed = null;
          for (String t : table.getActualTableNames(dataSource)) {
            if (routing.intervalOfTarget(t).orElse(Long.MIN_VALUE) == interval) {
              listed = t;
            }
          }
          if (listed == null) {
            warnings.add(table.getLogicTable() + ": actualDataNodes lists no table of " + when + " in " + dataSource
                + ", so its rows will be refused; create " + table.getLogicTable() + "_" + routing.suffix(interval)
                + " in every database (gene-id tables --config <your YAML> --create) and list it");
          } else if (!tableExists(database, dataSource, listed)) {
            warnings.add(table.getLogicTable() + ": " + dataSource + " has no table " + listed + " of " + when
                + ", which actualDataNodes lists; create it (gene-id tables --config <your YAML> --create)");
          }
        }
      }
    }
    return warnings;
  }

  /** Whether the physical database behind a data source holds {@code table}; true when that cannot be told. */
  private static boolean tableExists(ShardingSphereDatabase database, String dataSource, String table) {
    var unit = database.getResourceMetaData().getStorageUnits().get(dataSource);
    if (unit == null) {
      return true;
    }
    try (Connection c = unit.getDataSource().getConnection()) {
      DatabaseMetaData meta = c.getMetaData();
      for (String name : new LinkedHashSet<>(List.of(table, table.toLowerCase(Locale.ROOT),
          table.toUpperCase(Locale.ROOT)))) {
        try (ResultSet rs = meta.getTables(c.getCatalog(), null, name, null)) {
          if (rs.next()) {
            return true;
          }
        }
      }
      return false;
    } catch (SQLException e) {
      LOG.debug("cannot tell whether {} holds {}", dataSource, table, e);
      return true;
    }
  }

  private static @Nullable GeneIntervalShardingAlgorithm intervalAlgorithm(ShardingRule rule,
      @Nullable ShardingStrategyConfiguration strategy) {
    if (strategy == null || strategy.getShardingAlgorithmName() == null) {
      return null;
    }
    ShardingAlgorithm algorithm = rule.getShardingAlgorithms().get(strategy.getShardingAlgorithmName());
    return algorithm instanceof GeneIntervalShardingAlgorithm interval ? interval : null;
  }

  private static String describe(@Nullable GeneShardingAlgorithm algorithm) {
    return algorithm == null ? "not sharded" : algorithm.toString();
  }

  private static boolean isNone(@Nullable ShardingStrategyConfiguration strategy) {
    return strategy == null || strategy instanceof NoneShardingStrategyConfiguration;
  }

  private static @Nullable GeneShardingAlgorithm geneAlgorithm(ShardingRule rule,
      @Nullable ShardingStrategyConfiguration strategy) {
    if (strategy == null || strategy.getShardingAlgorithmName() == null) {
      return null;
    }
    ShardingAlgorithm algorithm = rule.getShardingAlgorithms().get(strategy.getShardingAlgorithmName());
    return algorithm instanceof GeneShardingAlgorithm ? (GeneShardingAlgorithm) algorithm : null;
  }
}
