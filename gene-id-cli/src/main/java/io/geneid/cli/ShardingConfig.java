package io.geneid.cli;

import io.geneid.core.GeneIdLayout;
import io.geneid.core.GeneRouting;
import io.geneid.core.IntervalRouting;
import io.geneid.core.bucket.BucketMap;
import io.geneid.core.bucket.BucketMapStores;
import io.geneid.core.settings.SettingsReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.function.IntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The routing part of a ShardingSphere YAML ({@code rules: - !SHARDING}): per logic table, its data nodes and the
 * {@code GENE_MOD} algorithm of each level ({@code tables}), or its {@code GENE_MOD_AUTO} algorithm and the tables
 * ShardingSphere makes for it ({@code autoTables}: {@code <table>_<i>} in {@code actualDataSources[i % n]}), so that
 * {@code gene-id shard --config} names the physical database and table the application writes a row to, by the rule
 * the application uses ({@link GeneRouting}).
 */
final class ShardingConfig {

  /**
   * One level (database or table) of a logic table: routed by {@code GENE_MOD}, by {@code GENE_INTERVAL} (the
   * interval of the id's own time), not sharded, or something else.
   */
  record Level(@Nullable GeneRouting routing, @Nullable String otherAlgorithm, @Nullable IntervalRouting interval) {
    static final Level NONE = new Level(null, null, null);

    Level(@Nullable GeneRouting routing, @Nullable String otherAlgorithm) {
      this(routing, otherAlgorithm, null);
    }
  }

  /**
   * A logic table.
   *
   * @param nodes data source to its physical tables, in the order of {@code actualDataNodes} (auto tables: in the
   *     order ShardingSphere places them)
   * @param auto an auto table: one level, {@code table}, over the tables of every data source
   */
  record Table(String name, Map<String, List<String>> nodes, Level database, Level table, boolean auto) {

    /**
     * {@code ds_1.t_item_0} (or {@code ds_1.t_item_202611} under {@code GENE_INTERVAL}), or why this table cannot be
     * routed: as GENE_MOD and GENE_INTERVAL route {@code id}.
     */
    String nodeOf(long id) {
      String unrouted = database.otherAlgorithm != null ? "database level uses " + database.otherAlgorithm
          : table.otherAlgorithm != null ? "table level uses " + table.otherAlgorithm : null;
      if (unrouted != null) {
        return "not routed by GENE_MOD (" + unrouted + ")";
      }
      try {
        if (auto) {
          List<String> all = nodes.values().stream().flatMap(List::stream).toList();
          String physical = pick(table, all, id, "tables");
          return nodes.entrySet().stream().filter(e -> e.getValue().contains(physical)).findFirst()
              .map(e -> e.getKey() + "." + physical).orElseThrow();
        }
        String ds = pick(database, new ArrayList<>(nodes.keySet()), id, "databases");
        return ds + "." + pick(table, nodes.get(ds), id, "tables of " + ds);
      } catch (IllegalStateException e) {
        return "cannot route: " + e.getMessage();
      }
    }

    private static String pick(Level level, List<String> targets, long id, String what) {
      if (level.routing != null) {
        return level.routing.target(targets, level.routing.indexOfKey(id));
      }
      if (level.interval != null) {
        long interval = level.interval.intervalOf(id);
        for (String target : targets) {
          if (level.interval.intervalOfTarget(target).orElse(Long.MIN_VALUE) == interval) {
            return target;
          }
        }
        throw new IllegalStateException("id " + id + " (" + level.interval.timestampOf(id) + ") is in interval "
            + level.interval.describe(interval) + " but none of the " + what + " " + targets + " ends with "
            + level.interval.suffix(interval));
      }
      if (targets.size() != 1) {
        throw new IllegalStateException("the " + what + " " + targets + " are not sharded, so a row may be in any");
      }
      return targets.get(0);
    }
  }

  private static final Pattern RANGE = Pattern.compile("\\s*(\\d+)\\s*\\.\\.\\s*(\\d+)\\s*");
  private static final int MAX_NODES = 100_000;

  private ShardingConfig() {}

  /** The logic tables of the file's sharding rule, in file order; empty if it has none. */
  static List<Table> read(Path file) {
    String fileName = String.valueOf(file.getFileName()).toLowerCase(Locale.ROOT);
    if (!fileName.endsWith(".yaml") && !fileName.endsWith(".yml")) {
      return List.of();
    }
    Object document = LayoutConfig.loadYaml(file);
    Map<?, ?> root = document instanceof Map<?, ?> m ? m : Map.of();
    Map<?, ?> rule = null;
    if (root.get("rules") instanceof List<?> rules) {
      for (Object r : rules) {
        if (r instanceof Map<?, ?> map && (map.containsKey("tables") || map.containsKey("autoTables")
            || map.containsKey("shardingAlgorithms"))) {
          rule = map;
        }
      }
    }
    if (rule == null) {
      return List.of();
    }
    List<String> dataSources = root.get("dataSources") instanceof Map<?, ?> ds
        ? ds.keySet().stream().map(String::valueOf).toList() : List.of();
    Map<?, ?> algorithms = map(rule.get("shardingAlgorithms"));
    List<Table> tables = new ArrayList<>();
    for (Map.Entry<?, ?> e : map(rule.get("tables")).entrySet()) {
      String name = String.valueOf(e.getKey());
      Map<?, ?> table = map(e.getValue());
      Object actual = table.get("actualDataNodes");
      Map<String, List<String>> nodes = new LinkedHashMap<>();
      if (actual == null) {
        dataSources.forEach(ds -> nodes.put(ds, List.of(name)));
      } else {
        for (String node : expand(String.valueOf(actual), "actualDataNodes of " + name)) {
          int dot = node.indexOf('.');
          if (dot <= 0 || dot == node.length() - 1) {
            throw new BadInputException(file + ": actualDataNodes of " + name + " must be <data source>.<table>"
                + " entries but held '" + node + "'");
          }
          nodes.computeIfAbsent(node.substring(0, dot), k -> new ArrayList<>()).add(node.substring(dot + 1));
        }
      }
      if (nodes.isEmpty()) {
        throw new BadInputException(file + ": table " + name + " has no actualDataNodes and the file no dataSources");
      }
      Level database = level(table.containsKey("databaseStrategy") ? table.get("databaseStrategy")
          : rule.get("defaultDatabaseStrategy"), algorithms, file);
      Level tableLevel = level(table.containsKey("tableStrategy") ? table.get("tableStrategy")
          : rule.get("defaultTableStrategy"), algorithms, file);
      tables.add(new Table(name, nodes, database, tableLevel, false));
    }
    for (Map.Entry<?, ?> e : map(rule.get("autoTables")).entrySet()) {
      String name = String.valueOf(e.getKey());
      Map<?, ?> table = map(e.getValue());
      Object actual = table.get("actualDataSources");
      List<String> sources = actual == null ? dataSources : expand(String.valueOf(actual),
          "actualDataSources of " + name);
      if (sources.isEmpty()) {
        throw new BadInputException(file + ": auto table " + name + " has no actualDataSources and the file no"
            + " dataSources");
      }
      Level level = level(table.get("shardingStrategy"), algorithms, file);
      Map<String, List<String>> nodes = new LinkedHashMap<>();
      sources.forEach(ds -> nodes.put(ds, new ArrayList<>()));
      if (level.routing != null) { // ShardingSphere's placement: table i in actualDataSources[i % n]
        for (int i = 0; i < level.routing.shardingCount(); i++) {
          nodes.get(sources.get(i % sources.size())).add(name + "_" + i);
        }
      }
      tables.add(new Table(name, nodes, Level.NONE, level, true));
    }
    return tables;
  }

  /**
   * A logic table whose table level is routed by {@code GENE_INTERVAL}.
   *
   * @param name the logic table
   * @param algorithm the name of its {@code GENE_INTERVAL} algorithm
   * @param routing the algorithm's interval rule
   * @param nodes data source to its physical tables, in the order of {@code actualDataNodes}
   */
  record IntervalTable(String name, String algorithm, IntervalRouting routing, Map<String, List<String>> nodes) {}

  /**
   * The logic tables of the file's sharding rules ({@code tables}) whose table strategy uses {@code GENE_INTERVAL},
   * in file order; empty if none.
   *
   * @throws BadInputException naming the file and the algorithm when its properties are wrong
   */
  static List<IntervalTable> intervalTables(Path file) {
    Object document = LayoutConfig.loadYaml(file);
    Map<?, ?> root = document instanceof Map<?, ?> m ? m : Map.of();
    List<IntervalTable> found = new ArrayList<>();
    if (!(root.get("rules") instanceof List<?> rules)) {
      return found;
    }
    for (Object r : rules) {
      Map<?, ?> rule = map(r);
      Map<?, ?> algorithms = map(rule.get("shardingAlgorithms"));
      for (Map.Entry<?, ?> e : map(rule.get("tables")).entrySet()) {
        String name = String.valueOf(e.getKey());
        Map<?, ?> table = map(e.getValue());
        Map<?, ?> forms = map(table.containsKey("tableStrategy") ? table.get("tableStrategy")
            : rule.get("defaultTableStrategy"));
        for (String form : List.of("standard", "complex", "hint")) {
          Object algorithmName = map(forms.get(form)).get("shardingAlgorithmName");
          Map<?, ?> algorithm = map(algorithms.get(String.valueOf(algorithmName)));
          if (algorithmName == null || !"GENE_INTERVAL".equalsIgnoreCase(String.valueOf(algorithm.get("type")))) {
            continue;
          }
          IntervalRouting routing;
          try {
            routing = IntervalRouting.from(SettingsReader.of(map(algorithm.get("props")))
                .ownedBy("GENE_INTERVAL '" + algorithmName + "'"));
          } catch (IllegalArgumentException ex) {
            throw new BadInputException(file + ": " + ex.getMessage());
          }
          Object actual = table.get("actualDataNodes");
          if (actual == null) {
            throw new BadInputException(file + ": table " + name + " routes by GENE_INTERVAL '" + algorithmName
                + "' but has no actualDataNodes to name its month tables");
          }
          Map<String, List<String>> nodes = new LinkedHashMap<>();
          for (String node : expand(String.valueOf(actual), "actualDataNodes of " + name)) {
            int dot = node.indexOf('.');
            if (dot <= 0 || dot == node.length() - 1) {
              throw new BadInputException(file + ": actualDataNodes of " + name + " must be <data source>.<table>"
                  + " entries but held '" + node + "'");
            }
            nodes.computeIfAbsent(node.substring(0, dot), k -> new ArrayList<>()).add(node.substring(dot + 1));
          }
          found.add(new IntervalTable(name, String.valueOf(algorithmName), routing, nodes));
        }
      }
    }
    return found;
  }

  /** The data sources of the file ({@code dataSources}), by name, with their settings; empty if none. */
  static Map<String, Map<?, ?>> dataSources(Path file) {
    Object document = LayoutConfig.loadYaml(file);
    Map<?, ?> root = document instanceof Map<?, ?> m ? m : Map.of();
    Map<String, Map<?, ?>> dataSources = new LinkedHashMap<>();
    map(root.get("dataSources")).forEach((k, v) -> dataSources.put(String.valueOf(k), map(v)));
    return dataSources;
  }

  private static Level level(@Nullable Object strategy, Map<?, ?> algorithms, Path file) {
    Map<?, ?> forms = map(strategy);
    for (String form : List.of("standard", "complex", "hint")) {
      if (forms.get(form) instanceof Map<?, ?> s && s.get("shardingAlgorithmName") != null) {
        String name = String.valueOf(s.get("shardingAlgorithmName"));
        Map<?, ?> algorithm = map(algorithms.get(name));
        if (algorithm.isEmpty()) {
          throw new BadInputException(file + ": sharding algorithm '" + name + "' is used but not defined under"
              + " shardingAlgorithms");
        }
        String type = String.valueOf(algorithm.get("type"));
        String upper = type.toUpperCase(Locale.ROOT);
        if (upper.equals("GENE_INTERVAL")) {
          try {
            return new Level(null, null, IntervalRouting.from(SettingsReader.of(map(algorithm.get("props")))
                .ownedBy("GENE_INTERVAL '" + name + "'")));
          } catch (IllegalArgumentException e) {
            throw new BadInputException(file + ": " + e.getMessage());
          }
        }
        if (!upper.equals("GENE_MOD") && !upper.equals("GENE_MOD_AUTO")) {
          return new Level(null, type + " ('" + name + "')");
        }
        Map<?, ?> props = map(algorithm.get("props"));
        try { // GENE_MOD_AUTO has no gene-divisor: one level
          return new Level(new GeneRouting(intProp(props, GeneRouting.SHARDING_COUNT, -1, name, file),
              upper.equals("GENE_MOD") ? intProp(props, GeneRouting.GENE_DIVISOR, 1, name, file) : 1,
              intProp(props, GeneRouting.GENE_BITS, GeneIdLayout.defaults().geneBits(), name, file)), null);
        } catch (IllegalArgumentException e) {
          throw new BadInputException(file + ": " + upper + " '" + name + "': " + e.getMessage());
        }
      }
    }
    return Level.NONE;
  }

  /**
   * The bucket map of the sharding algorithm {@code name} in a ShardingSphere YAML: {@code GENE_MOD}'s as
   * {@link BucketMap#ofMod}, {@code GENE_BUCKET}'s from its {@code bucket-map} (or its {@code GENE_MOD} properties).
   *
   * @throws BadInputException naming the file and the algorithm when it is missing, of another type, or wrong
   */
  static BucketMap bucketMap(Path file, String name) {
    Object document = LayoutConfig.loadYaml(file);
    Map<?, ?> root = document instanceof Map<?, ?> m ? m : Map.of();
    Map<String, Map<?, ?>> found = new LinkedHashMap<>();
    if (root.get("rules") instanceof List<?> rules) {
      for (Object r : rules) {
        map(map(r).get("shardingAlgorithms")).forEach((k, v) -> found.put(String.valueOf(k), map(v)));
      }
    }
    Map<?, ?> algorithm = found.get(name);
    if (algorithm == null) {
      throw new BadInputException(file + " defines no sharding algorithm '" + name + "'; it defines "
          + found.keySet());
    }
    String type = String.valueOf(algorithm.get("type")).toUpperCase(Locale.ROOT);
    Map<?, ?> props = map(algorithm.get("props"));
    int bits = intProp(props, GeneRouting.GENE_BITS, GeneIdLayout.defaults().geneBits(), name, file);
    try {
      if (type.equals("GENE_BUCKET") && props.get(BucketMap.BUCKET_MAP) != null) {
        return BucketMap.parse(bits, String.valueOf(props.get(BucketMap.BUCKET_MAP)));
      }
      if (type.equals("GENE_MOD") || type.equals("GENE_BUCKET")) {
        return BucketMap.ofMod(bits, intProp(props, GeneRouting.SHARDING_COUNT, -1, name, file),
            intProp(props, GeneRouting.GENE_DIVISOR, 1, name, file));
      }
    } catch (IllegalArgumentException e) {
      throw new BadInputException(file + ": " + type + " '" + name + "': " + e.getMessage());
    }
    if (type.equals("GENE_MOD_AUTO")) {
      String why = file + ": sharding algorithm '" + name + "' is GENE_MOD_AUTO: ShardingSphere places each auto"
          + " table on one data source (table i on actualDataSources[i % n]) from the YAML, so no bucket can move to"
          + " another database while routing follows it";
      String rules;
      try {
        rules = tablesForm(file, name);
      } catch (BadInputException e) {
        throw new BadInputException(why + "; route the family with GENE_BUCKET in tables to grow (docs/resharding.md),"
            + " which gene-id reshard writes for you from autoTables it can read, but here: " + e.getMessage());
      }
      throw new BadInputException(why + ". These tables rules route every id exactly where '" + name + "' does"
          + " (nothing moves when you switch); put them in place of the family's autoTables, restart the"
          + " applications, then grow with --algorithm " + name + "_db:", rules);
    }
    throw new BadInputException(file + ": sharding algorithm '" + name + "' is " + type
        + ", not GENE_MOD or GENE_BUCKET: only gene routing can grow by moving buckets");
  }

  /**
   * The {@code tables} form of the auto tables routed by {@code GENE_MOD_AUTO} algorithm {@code name}: every table
   * where ShardingSphere placed it ({@code actualDataNodes}), {@code GENE_BUCKET} of the data source count at the
   * database level ({@code <name>_db}, the level a move changes) and {@code GENE_MOD} of {@code sharding-count} at
   * the table level ({@code <name>_table}), each with the auto table's strategy (standard or complex) and its key
   * generator, and the write freeze auditor. Table {@code i} of an auto table is on {@code actualDataSources[i % n]};
   * the database level sends gene {@code g} to the data source ending in {@code _(g % n)} and the table level to
   * table {@code g % sharding-count}, the same node when the k-th data source ends in {@code _k} and {@code n}
   * divides {@code sharding-count}, which this checks.
   *
   * @throws BadInputException when the placement cannot be written so (names or counts that do not line up)
   */
  static String tablesForm(Path file, String name) {
    Object document = LayoutConfig.loadYaml(file);
    Map<?, ?> root = document instanceof Map<?, ?> m ? m : Map.of();
    Map<?, ?> rule = Map.of();
    if (root.get("rules") instanceof List<?> rules) {
      for (Object r : rules) {
        if (map(map(r).get("shardingAlgorithms")).containsKey(name)) {
          rule = map(r);
        }
      }
    }
    Map<?, ?> props = map(map(map(rule.get("shardingAlgorithms")).get(name)).get("props"));
    StringBuilder common = new StringBuilder();
    props.forEach((k, v) -> {
      if (!String.valueOf(k).equals(GeneRouting.SHARDING_COUNT)) {
        common.append(", ").append(k).append(": ").append(yamlScalar(v));
      }
    });
    StringBuilder tables = new StringBuilder();
    int dataSourceCount = -1;
    int tableCount = intProp(props, GeneRouting.SHARDING_COUNT, -1, name, file);
    for (Table table : read(file)) {
      Map<?, ?> config = map(map(rule.get("autoTables")).get(table.name()));
      Map<?, ?> strategy = map(config.get("shardingStrategy"));
      String form = strategy.containsKey("complex") ? "complex" : "standard";
      Map<?, ?> s = map(strategy.get(form));
      if (!table.auto() || !name.equals(String.valueOf(s.get("shardingAlgorithmName")))) {
        continue;
      }
      List<String> sources = new ArrayList<>(table.nodes().keySet());
      for (int k = 0; k < sources.size(); k++) {
        if (GeneRouting.suffix(sources.get(k)) != k) {
          throw new BadInputException(file + ": auto table " + table.name() + " lists data source "
              + sources.get(k) + " at position " + k + " of actualDataSources " + sources + "; in the tables form"
              + " the data source of index k is the one ending in _k, so list ds_0, ds_1, ... in order");
        }
      }
      if (tableCount % sources.size() != 0) {
        throw new BadInputException(file + ": '" + name + "' has sharding-count " + tableCount + ", not a multiple"
            + " of the " + sources.size() + " data sources of " + table.name() + ": its tables are not spread so"
            + " that one database level can find them");
      }
      if (dataSourceCount >= 0 && dataSourceCount != sources.size()) {
        throw new BadInputException(file + ": the auto tables of '" + name + "' use " + dataSourceCount + " and "
            + sources.size() + " data sources; one database level cannot route both");
      }
      dataSourceCount = sources.size();
      String column = form.equals("complex") ? "shardingColumns: " + yamlScalar(s.get("shardingColumns"))
          : "shardingColumn: " + yamlScalar(s.get("shardingColumn"));
      StringJoiner nodes = new StringJoiner(",");
      table.nodes().forEach((ds, physical) -> {
        StringJoiner indexes = new StringJoiner(",");
        physical.forEach(t -> indexes.add(String.valueOf(GeneRouting.suffix(t))));
        nodes.add(ds + "." + table.name() + "_${[" + indexes + "]}");
      });
      tables.append("    ").append(table.name()).append(":\n")
          .append("      actualDataNodes: '").append(nodes).append("'\n")
          .append("      databaseStrategy: {").append(form).append(": {").append(column)
          .append(", shardingAlgorithmName: ").append(name).append("_db}}\n")
          .append("      tableStrategy: {").append(form).append(": {").append(column)
          .append(", shardingAlgorithmName: ").append(name).append("_table}}\n");
      Map<?, ?> keys = map(config.get("keyGenerateStrategy"));
      if (!keys.isEmpty()) {
        tables.append("      keyGenerateStrategy: {column: ").append(yamlScalar(keys.get("column")))
            .append(", keyGeneratorName: ").append(yamlScalar(keys.get("keyGeneratorName"))).append("}\n");
      }
      tables.append("      auditStrategy: {auditorNames: [gene_freeze], allowHintDisable: false}\n");
    }
    if (dataSourceCount < 0) {
      throw new BadInputException(file + ": no auto table's shardingStrategy uses '" + name + "'");
    }
    return "  tables:\n" + tables
        + "  shardingAlgorithms:\n"
        + "    " + name + "_db: {type: GENE_BUCKET, props: {sharding-count: " + dataSourceCount + common + "}}\n"
        + "    " + name + "_table: {type: GENE_MOD, props: {sharding-count: " + tableCount + common + "}}\n"
        + "  auditors:\n"
        + "    gene_freeze: {type: GENE_BUCKET_FREEZE}\n";
  }

  private static String yamlScalar(@Nullable Object value) {
    String text = String.valueOf(value);
    return text.matches("[A-Za-z_][A-Za-z0-9_.-]*") && !text.equalsIgnoreCase("true")
        && !text.equalsIgnoreCase("false") && !text.equalsIgnoreCase("null") ? text
        : "'" + text.replace("'", "''") + "'";
  }

  /**
   * A table of a family: every table whose database level is routed by one {@code GENE_MOD}/{@code GENE_BUCKET}
   * algorithm, so its rows of a bucket move together.
   *
   * @param name the logic table
   * @param keyColumn its sharding column at the database level, whose gene is the bucket
   * @param physicalTable the physical table of a bucket (the same on every database)
   * @param tableLevel how that table is chosen, for messages: {@code t_order} or {@code GENE_MOD 'gene_table'}
   * @param algorithm the database-level algorithm that routes it: the one named on the command line, or another
   *     that follows the same map
   */
  record FamilyTable(String name, String keyColumn, IntFunction<String> physicalTable, String tableLevel,
      String algorithm) {}

  /**
   * Everything a move needs from the application's YAML.
   *
   * @param algorithm the database-level algorithm's name
   * @param map its map, as {@link #bucketMap} reads it
   * @param props its properties (the map store's, if the application follows one)
   * @param dataSources every data source of the file, by name, with its settings
   * @param tables the family, in file order
   */
  record Family(String algorithm, BucketMap map, Map<String, String> props, Map<String, Map<?, ?>> dataSources,
      List<FamilyTable> tables) {

    /** The data source of target {@code index}: the one whose name ends with {@code _index}. */
    String dataSourceOf(int index) {
      String found = null;
      for (String name : dataSources.keySet()) {
        if (GeneRouting.suffix(name) == index) {
          if (found != null) {
            throw new BadInputException("target " + index + " matches both data sources " + found + " and " + name
                + ": data source names must end with distinct _<index> suffixes");
          }
          found = name;
        }
      }
      if (found == null) {
        throw new BadInputException("no data source ends with _" + index + " among " + dataSources.keySet()
            + ": add the new databases to dataSources of the YAML before moving buckets to them");
      }
      return found;
    }
  }

  /**
   * The family of the database-level algorithm {@code algorithm}: the tables whose database strategy uses it, each
   * with its sharding column and the physical table of a bucket (from its table strategy's {@code GENE_MOD} or
   * {@code GENE_BUCKET}, or the single table of its data nodes; a table routed by {@code GENE_INTERVAL} is one entry
   * per month table, each holding rows of every bucket), and the file's data sources.
   *
   * @throws BadInputException naming the file, the table and what cannot be moved
   */
  static Family family(Path file, String algorithm) {
    BucketMap map = bucketMap(file, algorithm);
    Object document = LayoutConfig.loadYaml(file);
    Map<?, ?> root = document instanceof Map<?, ?> m ? m : Map.of();
    Map<String, Map<?, ?>> dataSources = new LinkedHashMap<>();
    map(root.get("dataSources")).forEach((k, v) -> dataSources.put(String.valueOf(k), map(v)));
    Map<String, String> props = new LinkedHashMap<>();
    List<Object> rules = root.get("rules") instanceof List<?> list ? new ArrayList<>(list) : List.of();
    for (Object r : rules) {
      Map<?, ?> algorithms = map(map(r).get("shardingAlgorithms"));
      if (algorithms.containsKey(algorithm)) {
        map(map(algorithms.get(algorithm)).get("props")).forEach((k, v) -> props.put(String.valueOf(k),
            String.valueOf(v)));
      }
    }
    // every algorithm of the file that follows the same stored map moves with it (issue #38, scenario 6)
    List<String> followers = new ArrayList<>(List.of(algorithm));
    String mapKey = mapKey(algorithm, props);
    for (Object r : rules) {
      for (Map.Entry<?, ?> e : map(map(r).get("shardingAlgorithms")).entrySet()) {
        String other = String.valueOf(e.getKey());
        Map<String, String> otherProps = new LinkedHashMap<>();
        map(map(e.getValue()).get("props")).forEach((k, v) -> otherProps.put(String.valueOf(k), String.valueOf(v)));
        if (mapKey == null || followers.contains(other) || !mapKey.equals(mapKey(other, otherProps))) {
          continue;
        }
        int bits = bucketMap(file, other).geneBits();
        if (bits != map.geneBits()) {
          throw new BadInputException(file + ": '" + other + "' follows map '" + otherProps.getOrDefault(
              BucketMapStores.MAP_NAME, other) + "' of the same map store as '" + algorithm + "' but has gene-bits "
              + bits + ", not " + map.geneBits() + ": a map moves as a whole, so both must route by the same"
              + " buckets");
        }
        followers.add(other);
      }
    }
    List<FamilyTable> tables = new ArrayList<>();
    Set<String> logicTables = new LinkedHashSet<>();
    for (String follower : followers) {
      for (Object r : rules) {
        Map<?, ?> rule = map(r);
        Map<?, ?> algorithms = map(rule.get("shardingAlgorithms"));
        if (!algorithms.containsKey(follower)) {
          continue;
        }
        for (Map.Entry<?, ?> e : map(rule.get("tables")).entrySet()) {
          String name = String.valueOf(e.getKey());
          Map<?, ?> table = map(e.getValue());
          Object dbStrategy = table.containsKey("databaseStrategy") ? table.get("databaseStrategy")
              : rule.get("defaultDatabaseStrategy");
          String column = keyColumn(map(dbStrategy), follower, name, table, file);
          if (column == null || !logicTables.add(name)) {
            continue;
          }
          tables.addAll(familyTables(file, name, column, table, table.containsKey("tableStrategy")
              ? table.get("tableStrategy") : rule.get("defaultTableStrategy"), algorithms, map.geneBits(),
              follower));
        }
      }
    }
    if (tables.isEmpty()) {
      throw new BadInputException(file + ": no table's databaseStrategy uses sharding algorithm '" + algorithm
          + "', so there is nothing to move");
    }
    if (dataSources.isEmpty()) {
      throw new BadInputException(file + " has no dataSources: the mover reads the databases from them");
    }
    return new Family(algorithm, map, props, dataSources, tables);
  }

  /**
   * Which stored map an algorithm follows, from its properties: the store's URL, table or key prefix, and the map's
   * name (default the algorithm's, as {@code reshard} takes it); null when it names no map store.
   */
  private static @Nullable String mapKey(String algorithm, Map<String, String> props) {
    String url = props.get(BucketMapStores.MAP_STORE_URL);
    if (url == null || url.isBlank()) {
      return null;
    }
    return url.trim() + "|" + props.getOrDefault(BucketMapStores.MAP_STORE_TABLE, "").trim() + "|"
        + props.getOrDefault(BucketMapStores.MAP_STORE_KEY_PREFIX, "").trim() + "|"
        + props.getOrDefault(BucketMapStores.MAP_NAME, algorithm).trim();
  }

  /**
   * The sharding column of a database strategy that uses {@code algorithm}, or null if it uses another. Of a complex
   * strategy's columns ({@code id,order_id}: an item by its own id or its order's, which carry one gene), the
   * table's generated key column if it is one of them (unique, so the mover pages by it), else the first.
   */
  private static @Nullable String keyColumn(Map<?, ?> strategy, String algorithm, String table, Map<?, ?> config,
      Path file) {
    for (String form : List.of("standard", "complex", "hint")) {
      Map<?, ?> s = map(strategy.get(form));
      if (!algorithm.equals(String.valueOf(s.get("shardingAlgorithmName")))) {
        continue;
      }
      Object column = form.equals("standard") ? s.get("shardingColumn") : s.get("shardingColumns");
      String columns = column == null ? "" : String.valueOf(column).trim();
      if (form.equals("hint") || columns.isEmpty()) {
        throw new BadInputException(file + ": table " + table + " uses '" + algorithm + "' in a " + form
            + " strategy " + (form.equals("hint") ? "(no column)" : "with no column")
            + ": the mover finds a bucket's rows by a numeric sharding column");
      }
      List<String> names = new ArrayList<>();
      for (String c : columns.split(",")) {
        if (!c.isBlank()) {
          names.add(c.trim());
        }
      }
      Object generated = map(config.get("keyGenerateStrategy")).get("column");
      for (String name : names) {
        if (generated != null && name.equalsIgnoreCase(String.valueOf(generated).trim())) {
          return name;
        }
      }
      return names.get(0);
    }
    return null;
  }

  /**
   * The physical tables of a logic table of the family, as the mover takes them: one whose physical table follows
   * the bucket ({@code GENE_MOD}, {@code GENE_BUCKET}, or a single table), or, for a table level routed by time
   * ({@code GENE_INTERVAL}), one per month table: a bucket's rows are in every one of them, and all move together.
   */
  private static List<FamilyTable> familyTables(Path file, String name, String column, Map<?, ?> table,
      @Nullable Object tableStrategy, Map<?, ?> algorithms, int geneBits, String algorithm) {
    List<String> physical = new ArrayList<>();
    Object actual = table.get("actualDataNodes");
    if (actual == null) {
      physical.add(name);
    } else {
      for (String node : expand(String.valueOf(actual), "actualDataNodes of " + name)) {
        String t = node.substring(node.indexOf('.') + 1);
        if (!physical.contains(t)) {
          physical.add(t);
        }
      }
    }
    Map<?, ?> forms = map(tableStrategy);
    for (String form : List.of("standard", "complex", "hint")) {
      Map<?, ?> s = map(forms.get(form));
      if (s.get("shardingAlgorithmName") == null) {
        continue;
      }
      String algorithmName = String.valueOf(s.get("shardingAlgorithmName"));
      String type = String.valueOf(map(algorithms.get(algorithmName)).get("type")).toUpperCase(Locale.ROOT);
      if (type.equals("GENE_INTERVAL")) {
        List<FamilyTable> months = new ArrayList<>();
        for (String t : physical) {
          months.add(new FamilyTable(t, column, b -> t, type + " '" + algorithmName + "'", algorithm));
        }
        return months;
      }
      if (!type.equals("GENE_MOD") && !type.equals("GENE_BUCKET")) {
        throw new BadInputException(file + ": the table level of " + name + " uses " + type + " ('"
            + algorithmName + "'): the mover places a bucket's rows only by GENE_MOD, GENE_BUCKET or GENE_INTERVAL");
      }
      BucketMap tableMap = bucketMap(file, algorithmName);
      if (tableMap.geneBits() != geneBits) {
        throw new BadInputException(file + ": the table level of " + name + " ('" + algorithmName + "') has"
            + " gene-bits " + tableMap.geneBits() + " but the database level has " + geneBits);
      }
      Map<Integer, String> bySuffix = new LinkedHashMap<>();
      for (String t : physical) {
        String before = bySuffix.put(GeneRouting.suffix(t), t);
        if (before != null && GeneRouting.suffix(t) >= 0) {
          throw new BadInputException(file + ": the physical tables " + before + " and " + t + " of " + name
              + " end with one _<index> suffix");
        }
      }
      String[] byBucket = new String[tableMap.bucketCount()];
      for (int b = 0; b < byBucket.length; b++) {
        byBucket[b] = bySuffix.get(tableMap.target(b));
        if (byBucket[b] == null) {
          throw new BadInputException(file + ": table " + name + ": '" + algorithmName + "' routes bucket " + b
              + " to table index " + tableMap.target(b) + " but no physical table among " + physical
              + " ends with _" + tableMap.target(b));
        }
      }
      return List.of(new FamilyTable(name, column, b -> byBucket[b], type + " '" + algorithmName + "'", algorithm));
    }
    if (physical.size() != 1) {
      throw new BadInputException(file + ": table " + name + " has the physical tables " + physical + " but no"
          + " table strategy: the mover cannot tell which one holds a bucket");
    }
    String only = physical.get(0);
    return List.of(new FamilyTable(name, column, b -> only, only, algorithm));
  }

  private static int intProp(Map<?, ?> props, String key, int fallback, String algorithm, Path file) {
    Object value = props.get(key);
    if (value == null && fallback >= 0) {
      return fallback;
    }
    try {
      return Integer.parseInt(String.valueOf(value).trim());
    } catch (NumberFormatException e) {
      throw new BadInputException(file + ": GENE_MOD '" + algorithm + "' needs " + key + " as a whole number but"
          + " was " + (value == null ? "missing" : "'" + value + "'"));
    }
  }

  private static Map<?, ?> map(@Nullable Object value) {
    return value instanceof Map<?, ?> m ? m : Map.of();
  }

  /**
   * Expands a ShardingSphere inline expression: comma-separated entries, each with any number of
   * {@code ${a..b}} / {@code $->{a..b}} ranges and {@code ${[x, y]}} lists, crossed in order
   * ({@code ds_${0..1}.t_${0..1}} is {@code ds_0.t_0, ds_0.t_1, ds_1.t_0, ds_1.t_1}).
   *
   * @throws BadInputException for any other Groovy expression, naming it
   */
  static List<String> expand(String expression, String what) {
    List<String> out = new ArrayList<>();
    for (String entry : splitTopLevel(expression)) {
      List<String> partial = List.of("");
      int last = 0;
      for (int start = inlineStart(entry, 0); start >= 0; start = inlineStart(entry, last)) {
        int open = entry.indexOf('{', start);
        int close = matchingBrace(entry, open);
        if (close < 0) {
          throw new BadInputException(what + ": " + entry.substring(start) + " has no closing }");
        }
        partial = cross(partial, List.of(entry.substring(last, start)));
        partial = cross(partial, values(entry.substring(open + 1, close), entry.substring(start, close + 1), what));
        last = close + 1;
      }
      partial = cross(partial, List.of(entry.substring(last)));
      out.addAll(partial);
      if (out.size() > MAX_NODES) {
        throw new BadInputException(what + " expands to more than " + MAX_NODES + " entries");
      }
    }
    return out;
  }

  private static List<String> values(String body, String whole, String what) {
    Matcher range = RANGE.matcher(body);
    if (range.matches()) {
      long from = Long.parseLong(range.group(1));
      long to = Long.parseLong(range.group(2));
      if (to < from || to - from >= MAX_NODES) {
        throw new BadInputException(what + ": the range " + whole + " must go up, over at most " + MAX_NODES
            + " values");
      }
      List<String> values = new ArrayList<>();
      for (long i = from; i <= to; i++) {
        values.add(Long.toString(i));
      }
      return values;
    }
    String list = body.trim();
    if (list.startsWith("[") && list.endsWith("]")) {
      List<String> values = new ArrayList<>();
      for (String item : list.substring(1, list.length() - 1).split(",")) {
        String v = item.trim();
        if (v.length() >= 2 && (v.charAt(0) == '\'' || v.charAt(0) == '"') && v.charAt(v.length() - 1) == v.charAt(0)) {
          v = v.substring(1, v.length() - 1);
        }
        if (!v.isEmpty()) {
          values.add(v);
        }
      }
      return values;
    }
    throw new BadInputException(what + ": cannot expand " + whole + " (the command line understands ${a..b} and"
        + " ${[x, y]}; write other expressions out as a comma-separated list)");
  }

  /** Where the next {@code ${} or {@code $->{} starts, or -1. */
  private static int inlineStart(String s, int from) {
    int a = s.indexOf("${", from);
    int b = s.indexOf("$->{", from);
    return a < 0 ? b : b < 0 ? a : Math.min(a, b);
  }

  private static int matchingBrace(String s, int open) {
    int depth = 0;
    for (int i = open; i < s.length(); i++) {
      if (s.charAt(i) == '{') {
        depth++;
      } else if (s.charAt(i) == '}' && --depth == 0) {
        return i;
      }
    }
    return -1;
  }

  private static List<String> splitTopLevel(String expression) {
    List<String> parts = new ArrayList<>();
    int depth = 0;
    int start = 0;
    for (int i = 0; i < expression.length(); i++) {
      char c = expression.charAt(i);
      if (c == '{' || c == '[') {
        depth++;
      } else if ((c == '}' || c == ']') && depth > 0) {
        depth--;
      } else if (c == ',' && depth == 0) {
        parts.add(expression.substring(start, i).trim());
        start = i + 1;
      }
    }
    parts.add(expression.substring(start).trim());
    parts.removeIf(String::isEmpty);
    return parts;
  }

  private static List<String> cross(List<String> prefixes, List<String> suffixes) {
    List<String> out = new ArrayList<>(prefixes.size() * suffixes.size());
    for (String p : prefixes) {
      for (String s : suffixes) {
        out.add(p + s);
      }
    }
    return out;
  }
}
