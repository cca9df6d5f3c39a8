package io.geneid.cli;

import com.zaxxer.hikari.HikariDataSource;
import io.geneid.core.GeneIdException;
import io.geneid.core.IntervalRouting;
import io.geneid.core.internal.StoreUrls;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code gene-id tables --config app.yaml [--intervals N] [--create]}: the tables of the current interval and the next
 * ones of every logic table a ShardingSphere YAML routes by {@code GENE_INTERVAL}, on every data source of its
 * {@code actualDataNodes}: printed as DDL that copies the nearest earlier table ({@code CREATE TABLE ... LIKE} on
 * MariaDB/MySQL, {@code (LIKE ... INCLUDING ALL)} on PostgreSQL, {@code AS SELECT ... WITH NO DATA} plus the primary
 * key on H2), or created; then the {@code actualDataNodes} that list them, which ShardingSphere needs as well.
 */
@Command(name = "tables", mixinStandardHelpOptions = true,
    description = {"Prints (or with --create creates) the tables of the current interval and the next ones for every"
        + " logic table a ShardingSphere YAML routes by GENE_INTERVAL, on every data source of its actualDataNodes,"
        + " each a copy of the nearest earlier table; then the actualDataNodes that list them."})
final class TablesCommand implements Callable<Integer> {

  private static final int MAX_INTERVALS = 1000;
  private static final Pattern NUMBERED = Pattern.compile("(.*?)(\\d+)");

  @CommandLine.Spec
  @SuppressWarnings("NullAway.Init")
  CommandLine.Model.CommandSpec spec;

  @CommandLine.ParentCommand
  @SuppressWarnings("NullAway.Init")
  GeneIdCli cli;

  @Option(names = "--config", required = true, paramLabel = "<file>", description = "The application's"
      + " ShardingSphere YAML (its dataSources are connected to with --create).")
  @SuppressWarnings("NullAway.Init")
  Path config;

  @Option(names = "--intervals", paramLabel = "<N>", defaultValue = "3", description = "How many intervals, the"
      + " current one first, in [1, " + MAX_INTERVALS + "]; default 3 (this month and the next two).")
  String intervals = "3";

  @Option(names = "--from", paramLabel = "<instant>", description = "Start from the interval holding this instant"
      + " (2026-12-01T00:00:00Z, or a date: its midnight UTC) instead of now.")
  @Nullable String from;

  @Option(names = "--table", paramLabel = "<logic table>", description = "Only these logic tables (repeatable);"
      + " default every table routed by GENE_INTERVAL.")
  List<String> tables = new ArrayList<>();

  @Option(names = "--create", description = "Create the missing tables in the databases instead of printing the"
      + " DDL; tables that exist are left alone.")
  boolean create;

  /** How a database copies a table's structure. */
  enum Dialect {
    MYSQL, POSTGRESQL, H2;

    static Dialect of(String url, String dataSource) {
      String u = url.toLowerCase(Locale.ROOT);
      if (u.startsWith("jdbc:mariadb:") || u.startsWith("jdbc:mysql:")) {
        return MYSQL;
      }
      if (u.startsWith("jdbc:postgresql:")) {
        return POSTGRESQL;
      }
      if (u.startsWith("jdbc:h2:")) {
        return H2;
      }
      throw new BadInputException("data source " + dataSource + " (" + StoreUrls.describe(url) + ") is none of"
          + " MariaDB/MySQL, PostgreSQL or H2, whose DDL this command writes");
    }

    String copy(String table, String template) {
      return switch (this) {
        case MYSQL -> "CREATE TABLE IF NOT EXISTS " + table + " LIKE " + template;
        case POSTGRESQL -> "CREATE TABLE IF NOT EXISTS " + table + " (LIKE " + template + " INCLUDING ALL)";
        case H2 -> "CREATE TABLE IF NOT EXISTS " + table + " AS SELECT * FROM " + template + " WITH NO DATA";
      };
    }
  }

  @Override
  public Integer call() {
    long count = Ids.wholeNumber("intervals", intervals);
    if (count < 1 || count > MAX_INTERVALS) {
      throw new BadInputException("--intervals must be in [1, " + MAX_INTERVALS + "] but was " + intervals);
    }
    Instant now = from == null ? cli.clock().instant() : instant(from);
    List<ShardingConfig.IntervalTable> all = ShardingConfig.intervalTables(config);
    if (all.isEmpty()) {
      throw new BadInputException(config + " routes no table by GENE_INTERVAL at the table level");
    }
    for (String name : tables) {
      if (all.stream().noneMatch(t -> t.name().equals(name))) {
        throw new BadInputException("--table " + name + " is not routed by GENE_INTERVAL in " + config + "; these are: "
            + all.stream().map(ShardingConfig.IntervalTable::name).toList());
      }
    }
    Map<String, Map<?, ?>> dataSources = ShardingConfig.dataSources(config);
    List<Plan> plans = new ArrayList<>();
    for (ShardingConfig.IntervalTable table : all) {
      if (tables.isEmpty() || tables.contains(table.name())) {
        plans.add(plan(table, now, count, dataSources));
      }
    }
    PrintWriter out = spec.commandLine().getOut();
    Map<String, HikariDataSource> pools = new LinkedHashMap<>();
    try {
      for (Plan plan : plans) {
        out.println("-- " + plan.table().name() + ": GENE_INTERVAL '" + plan.table().algorithm() + "' ("
            + plan.table().routing() + "), intervals " + plan.table().routing().suffix(plan.first()) + " to "
            + plan.table().routing().suffix(plan.last()) + (from == null ? ", from now (" + Text.utc(now) + ")" : ""));
        for (DataSourcePlan ds : plan.dataSources()) {
          out.println("-- " + ds.name());
          if (create) {
            HikariDataSource pool = pools.computeIfAbsent(ds.name(), n -> ReshardSetup.connect(n,
                dataSources.get(n)));
            create(pool, ds, out);
          } else {
            for (Copy copy : ds.copies()) {
              out.println(ds.dialect().copy(copy.table(), copy.template()) + ";");
              if (ds.dialect() == Dialect.H2) {
                out.println("-- then the primary key and indexes of " + copy.template() + " (--create adds the"
                    + " primary key)");
              }
            }
          }
        }
        out.println("-- actualDataNodes of " + plan.table().name() + ": " + actualDataNodes(plan));
      }
    } finally {
      pools.values().forEach(HikariDataSource::close);
    }
    return 0;
  }

  /** A table to create as a copy of another. */
  record Copy(long interval, String table, String template) {}

  /** The tables of one data source: every interval's, listed or new, and the copies that make the new ones. */
  record DataSourcePlan(String name, Dialect dialect, TreeMap<Long, String> tables, List<Copy> copies) {}

  record Plan(ShardingConfig.IntervalTable table, long first, long last, List<DataSourcePlan> dataSources) {}

  private Plan plan(ShardingConfig.IntervalTable table, Instant now, long count, Map<String, Map<?, ?>> dataSources) {
    IntervalRouting routing = table.routing();
    long current = routing.intervalAt(now);
    if (current > routing.lastInterval()) {
      throw new BadInputException(table.name() + ": " + Text.utc(now) + " lies after " + IntervalRouting.DATETIME_UPPER
          + " " + routing.upper() + " of '" + table.algorithm() + "': raise it first");
    }
    long first = Math.max(0, current);
    long last = Math.min(routing.lastInterval(), first + count - 1);
    int suffixLength = routing.suffix(first).length();
    List<DataSourcePlan> plans = new ArrayList<>();
    table.nodes().forEach((name, physical) -> {
      Map<?, ?> settings = dataSources.get(name);
      if (settings == null) {
        throw new BadInputException(config + ": actualDataNodes of " + table.name() + " name data source " + name
            + " but dataSources has none of that name; it has " + dataSources.keySet());
      }
      Dialect dialect = Dialect.of(ReshardSetup.url(name, settings), name);
      TreeMap<Long, String> listed = new TreeMap<>();
      for (String t : physical) {
        long interval = routing.intervalOfTarget(t).orElseThrow(() -> new BadInputException(config + ": "
            + name + "." + t + " of " + table.name() + " does not end with an interval's suffix ("
            + IntervalRouting.SHARDING_SUFFIX_PATTERN + " " + routing.suffixPattern() + ")"));
        listed.put(interval, t);
      }
      if (listed.isEmpty()) {
        throw new BadInputException(config + ": " + table.name() + " lists no table in " + name + " to copy");
      }
      String any = listed.firstEntry().getValue();
      String prefix = any.substring(0, any.length() - suffixLength);
      TreeMap<Long, String> all = new TreeMap<>(listed);
      List<Copy> copies = new ArrayList<>();
      for (long k = first; k <= last; k++) { // in order: each copies the nearest earlier one, made before it
        boolean isListed = listed.containsKey(k);
        String target = isListed ? listed.get(k) : prefix + routing.suffix(k);
        Map.Entry<Long, String> earlier = all.lowerEntry(k);
        Map.Entry<Long, String> later = listed.higherEntry(k);
        String template = earlier != null ? earlier.getValue() : isListed || later == null ? null : later.getValue();
        if (template != null) { // a listed table is made too if missing: --create checks each
          copies.add(new Copy(k, target, template));
        }
        all.put(k, target);
      }
      plans.add(new DataSourcePlan(name, dialect, all, copies));
    });
    return new Plan(table, first, last, plans);
  }

  /** Creates the copies that do not exist yet, each from the nearest earlier table that exists. */
  private void create(HikariDataSource pool, DataSourcePlan ds, PrintWriter out) {
    try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
      for (Copy copy : ds.copies()) {
        if (exists(c, copy.table())) {
          out.println("-- " + copy.table() + " exists");
          continue;
        }
        String template = null;
        for (Map.Entry<Long, String> e = ds.tables().lowerEntry(copy.interval()); e != null && template == null;
            e = ds.tables().lowerEntry(e.getKey())) {
          template = exists(c, e.getValue()) ? e.getValue() : null;
        }
        for (Map.Entry<Long, String> e = ds.tables().higherEntry(copy.interval()); e != null && template == null;
            e = ds.tables().higherEntry(e.getKey())) {
          template = exists(c, e.getValue()) ? e.getValue() : null;
        }
        if (template == null) {
          throw new BadInputException(ds.name() + " holds none of " + ds.tables().values() + " to copy into "
              + copy.table() + ": create one by hand first");
        }
        String ddl = ds.dialect().copy(copy.table(), template);
        st.execute(ddl);
        out.println(ddl + ";");
        if (ds.dialect() == Dialect.H2) {
          List<String> key = primaryKey(c, template);
          List<String> alters = new ArrayList<>();
          key.forEach(column -> alters.add("ALTER TABLE " + copy.table() + " ALTER COLUMN " + column
              + " SET NOT NULL"));
          if (!key.isEmpty()) {
            alters.add("ALTER TABLE " + copy.table() + " ADD PRIMARY KEY (" + String.join(", ", key) + ")");
          }
          for (String alter : alters) {
            st.execute(alter);
            out.println(alter + ";");
          }
        }
      }
    } catch (SQLException e) {
      throw new GeneIdException("creating the tables of " + ds.name() + " failed: " + e.getMessage(), e);
    }
  }

  private static boolean exists(Connection c, String table) throws SQLException {
    DatabaseMetaData meta = c.getMetaData();
    for (String name : new LinkedHashSet<>(List.of(table, table.toLowerCase(Locale.ROOT),
        table.toUpperCase(Locale.ROOT)))) {
      try (ResultSet rs = meta.getTables(c.getCatalog(), null, name, new String[] {"TABLE", "BASE TABLE"})) {
        if (rs.next()) {
          return true;
        }
      }
    }
    return false;
  }

  private static List<String> primaryKey(Connection c, String table) throws SQLException {
    DatabaseMetaData meta = c.getMetaData();
    for (String name : new LinkedHashSet<>(List.of(table, table.toUpperCase(Locale.ROOT),
        table.toLowerCase(Locale.ROOT)))) {
      TreeMap<Short, String> columns = new TreeMap<>();
      try (ResultSet rs = meta.getPrimaryKeys(c.getCatalog(), null, name)) {
        while (rs.next()) {
          columns.put(rs.getShort("KEY_SEQ"), rs.getString("COLUMN_NAME"));
        }
      }
      if (!columns.isEmpty()) {
        return new ArrayList<>(columns.values());
      }
    }
    return List.of();
  }

  /**
   * The {@code actualDataNodes} listing every table of the plan: {@code ds_${0..1}.t_item_${[202611, 202612]}} when
   * the data sources are numbered without gaps and hold the same suffixes, else one entry per data source.
   */
  private static String actualDataNodes(Plan plan) {
    IntervalRouting routing = plan.table().routing();
    int suffixLength = routing.suffix(plan.first()).length();
    Map<String, String> prefixes = new LinkedHashMap<>();
    Map<String, Set<String>> suffixes = new LinkedHashMap<>();
    for (DataSourcePlan ds : plan.dataSources()) {
      Set<String> s = new TreeSet<>();
      ds.tables().values().forEach(t -> s.add(t.substring(t.length() - suffixLength)));
      String any = ds.tables().firstEntry().getValue();
      prefixes.put(ds.name(), any.substring(0, any.length() - suffixLength));
      suffixes.put(ds.name(), s);
    }
    List<String> names = new ArrayList<>(suffixes.keySet());
    boolean alike = new LinkedHashSet<>(suffixes.values()).size() == 1
        && new LinkedHashSet<>(prefixes.values()).size() == 1;
    String dataSourceRange = alike ? numberedRange(names) : null;
    if (dataSourceRange != null) {
      return dataSourceRange + "." + prefixes.get(names.get(0)) + "${[" + String.join(", ",
          suffixes.get(names.get(0))) + "]}";
    }
    List<String> entries = new ArrayList<>();
    for (String name : names) {
      entries.add(name + "." + prefixes.get(name) + "${[" + String.join(", ", suffixes.get(name)) + "]}");
    }
    return String.join(", ", entries);
  }

  /** {@code ds_${0..1}} for ds_0, ds_1; null unless the names are one prefix and the numbers a run from the first. */
  private static @Nullable String numberedRange(List<String> names) {
    String prefix = null;
    List<Integer> numbers = new ArrayList<>();
    for (String name : names) {
      Matcher m = NUMBERED.matcher(name);
      if (!m.matches() || (prefix != null && !prefix.equals(m.group(1))) || m.group(2).length() > 9) {
        return null;
      }
      prefix = m.group(1);
      numbers.add(Integer.parseInt(m.group(2)));
    }
    for (int i = 1; i < numbers.size(); i++) {
      if (numbers.get(i) != numbers.get(i - 1) + 1) {
        return null;
      }
    }
    return names.size() == 1 ? names.get(0) : prefix + "${" + numbers.get(0) + ".." + numbers.get(numbers.size() - 1)
        + "}";
  }

  private static Instant instant(String text) {
    try {
      return text.length() == 10 ? LocalDate.parse(text).atStartOfDay(java.time.ZoneOffset.UTC).toInstant()
          : Instant.parse(text);
    } catch (DateTimeException e) {
      throw new BadInputException("--from must be an instant such as 2026-12-01T00:00:00Z or a date such as"
          + " 2026-12-01 but was '" + text + "'");
    }
  }
}
