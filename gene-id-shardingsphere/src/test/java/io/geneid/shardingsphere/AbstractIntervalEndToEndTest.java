package io.geneid.shardingsphere;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.geneid.core.GeneContext;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Issue #43 end to end: orders and items through ShardingSphere-JDBC over 2 databases x 3 month tables, the database
 * chosen by the gene ({@code GENE_MOD}), the table by the month of the id's own timestamp ({@code GENE_INTERVAL}).
 * Orders are written at the end of last month and items across the month boundary by a generator on a fake clock
 * (the ids are given in the INSERT, as MyBatis-Plus {@code ASSIGN_ID} does); more orders and items get their ids from
 * {@code GENE_SNOWFLAKE} now. Then: every row sits in its gene's database and its own month's table; an item is found
 * by its own id in 1 table and by its order in at most 2 (one database); a one-month report reads only that month's
 * tables; a child past {@code max-child-lag} is refused naming both ids. Physical statements are counted as the other
 * end-to-end tests count them.
 */
@SuppressWarnings("try") // a GeneContext scope is used by being open
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractIntervalEndToEndTest {

  private static final Pattern PHYSICAL_TABLE = Pattern.compile("\\b(t_(?:order|item)_\\d{6})\\b");
  private static final DateTimeFormatter MONTH = DateTimeFormatter.ofPattern("yyyyMM");
  private static final GeneIdLayout LAYOUT = GeneIdLayout.defaults();

  /** Last month, this month and next month (UTC), as table suffixes. */
  private final List<String> months = new ArrayList<>();
  private Instant boundary;
  private ShardedDatabases databases;
  private DataSource sharded;
  private final AtomicLong fakeMillis = new AtomicLong();
  /** order id -> its items, as inserted */
  private final Map<Long, List<Long>> itemsByOrder = new LinkedHashMap<>();
  private long boundaryOrder;

  abstract Backend backend();

  static String rules(String lowerMonthStart, List<String> months) {
    String tables = "${[" + String.join(", ", months) + "]}";
    return """
        databaseName: gene_interval_e2e
        rules:
        - !SHARDING
          tables:
            t_order:
              actualDataNodes: ds_${0..1}.t_order_%2$s
              databaseStrategy: {standard: {shardingColumn: id, shardingAlgorithmName: by_gene}}
              tableStrategy: {standard: {shardingColumn: id, shardingAlgorithmName: by_month}}
              keyGenerateStrategy: {column: id, keyGeneratorName: ids}
            t_item:
              actualDataNodes: ds_${0..1}.t_item_%2$s
              databaseStrategy: {complex: {shardingColumns: 'id,order_id', shardingAlgorithmName: by_gene}}
              tableStrategy: {complex: {shardingColumns: 'id,order_id', shardingAlgorithmName: by_month}}
              keyGenerateStrategy: {column: id, keyGeneratorName: ids}
          shardingAlgorithms:
            by_gene:
              type: GENE_MOD
              props:
                sharding-count: 2
            by_month:
              type: GENE_INTERVAL
              props:
                datetime-lower: '%1$s'
                datetime-interval-unit: MONTHS
                sharding-suffix-pattern: yyyyMM
                parent-columns: order_id
          keyGenerators:
            ids:
              type: GENE_SNOWFLAKE
              props:
                worker-id: '1'
        props:
          sql-show: false
        """.formatted(lowerMonthStart, tables);
  }

  @BeforeAll
  void start() throws Exception {
    YearMonth now = YearMonth.now(ZoneOffset.UTC);
    YearMonth last = now.minusMonths(1);
    for (YearMonth m : List.of(last, now, now.plusMonths(1))) {
      months.add(m.format(MONTH));
    }
    boundary = now.atDay(1).atStartOfDay(ZoneOffset.UTC).toInstant();
    databases = new ShardedDatabases(backend(), 2, months);
    sharded = GeneShardingCheck.verify(databases.shardingSphere(rules(last.atDay(1) + " 00:00:00", months)));
    insertEverything(last);
  }

  @AfterAll
  void stop() throws Exception {
    if (databases != null) {
      databases.close();
    }
  }

  private void insertEverything(YearMonth last) throws SQLException {
    // the 10th of last month: orders and their items of that day
    fakeMillis.set(last.atDay(10).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli());
    GeneSnowflakeGenerator fake = GeneSnowflakeGenerator.builder().workerId(200).clock(fakeMillis::get)
        .buildUnshared();
    try (Connection c = sharded.getConnection()) {
      for (int i = 0; i < 4; i++) {
        long order = insertOrder(c, fake.nextId(), "mid-" + i);
        insertItem(c, fake.nextIdFor(order), order, "a");
      }
      // 50 ms before midnight: orders, one item each before midnight, then items after it (next month's tables)
      fakeMillis.set(boundary.toEpochMilli() - 50);
      List<Long> lateOrders = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        long order = insertOrder(c, fake.nextId(), "late-" + i);
        lateOrders.add(order);
        insertItem(c, fake.nextIdFor(order), order, "before midnight");
      }
      boundaryOrder = lateOrders.get(0);
      fakeMillis.set(boundary.toEpochMilli() + 5);
      for (long order : lateOrders) {
        insertItem(c, fake.nextIdFor(order), order, "after midnight");
      }
      // one multi-row INSERT with an item from each side of midnight
      fakeMillis.set(boundary.toEpochMilli() - 1);
      long before = fake.nextIdFor(lateOrders.get(1));
      fakeMillis.set(boundary.toEpochMilli() + 9);
      long after = fake.nextIdFor(lateOrders.get(2));
      try (PreparedStatement ps = c.prepareStatement(
          "INSERT INTO t_item (id, order_id, name) VALUES (?, ?, ?), (?, ?, ?)")) {
        ps.setLong(1, before);
        ps.setLong(2, lateOrders.get(1));
        ps.setString(3, "multi");
        ps.setLong(4, after);
        ps.setLong(5, lateOrders.get(2));
        ps.setString(6, "multi");
        assertThat(ps.executeUpdate()).isEqualTo(2);
      }
      itemsByOrder.get(lateOrders.get(1)).add(before);
      itemsByOrder.get(lateOrders.get(2)).add(after);
      // now: ids from GENE_SNOWFLAKE, items inside a scope
      for (int i = 0; i < 3; i++) {
        long order = insertGeneratedOrder(c, "now-" + i);
        try (var scope = GeneContext.inherit(order)) {
          insertGeneratedItem(c, order);
          insertGeneratedItem(c, order);
        }
      }
    }
  }

  @Test
  void everyRowSitsInItsGenesDatabaseAndInTheTableOfItsOwnMonth() throws SQLException {
    Map<Long, String> orderNode = new LinkedHashMap<>();
    Map<Long, String> itemNode = new LinkedHashMap<>();
    for (String ds : databases.dataSources.keySet()) {
      try (Connection c = databases.physical(ds).getConnection(); Statement s = c.createStatement()) {
        for (String month : months) {
          for (String table : List.of("t_order", "t_item")) {
            try (ResultSet rs = s.executeQuery("SELECT id FROM " + table + "_" + month)) {
              while (rs.next()) {
                long id = rs.getLong(1);
                assertThat(ds).as("database of %d", id).isEqualTo("ds_" + LAYOUT.geneOf(id) % 2);
                assertThat(month).as("month of %d", id).isEqualTo(monthOf(id));
                assertThat((table.equals("t_order") ? orderNode : itemNode).put(id, ds + "/" + month)).isNull();
              }
            }
          }
        }
      }
    }
    assertThat(orderNode.keySet()).containsExactlyInAnyOrderElementsOf(itemsByOrder.keySet());
    assertThat(itemNode).hasSize(itemsByOrder.values().stream().mapToInt(List::size).sum());
    itemsByOrder.forEach((order, items) -> items.forEach(item -> {
      assertThat(itemNode.get(item)).startsWith(orderNode.get(order).substring(0, 5));
      int lag = months.indexOf(monthOf(item)) - months.indexOf(monthOf(order));
      assertThat(lag).as("item %d of order %d", item, order).isBetween(0, 1);
    }));
    // the boundary orders' items went to both months
    assertThat(itemsByOrder.get(boundaryOrder).stream().map(AbstractIntervalEndToEndTest::monthOf))
        .containsExactlyInAnyOrder(months.get(0), months.get(1));
  }

  @Test
  void anItemIsFoundByItsOwnIdInOneTableAndByItsOrderInAtMostTwoOfOneDatabase() throws SQLException {
    int twoTables = 0;
    try (Connection c = sharded.getConnection()) {
      for (Map.Entry<Long, List<Long>> e : itemsByOrder.entrySet()) {
        long order = e.getKey();
        for (long item : e.getValue()) {
          List<String> byId = physicalStatements(() ->
              assertThat(longs(c, "SELECT order_id FROM t_item WHERE id = ?", item)).containsExactly(order));
          assertThat(byId).hasSize(1);
          assertThat(tables(byId)).containsExactly(databaseOf(order) + "/t_item_" + monthOf(item));
        }
        List<String> byOrder = physicalStatements(() -> assertThat(longs(c,
            "SELECT id FROM t_item WHERE order_id = ?", order)).containsExactlyInAnyOrderElementsOf(e.getValue()));
        Set<String> read = tables(byOrder);
        assertThat(read).hasSizeBetween(1, 2).allSatisfy(t -> assertThat(t).startsWith(databaseOf(order) + "/"));
        twoTables += read.size() == 2 ? 1 : 0;
        if (order == boundaryOrder) {
          assertThat(read).containsExactly(databaseOf(order) + "/t_item_" + months.get(0),
              databaseOf(order) + "/t_item_" + months.get(1));
          System.out.printf("%s GENE_INTERVAL: items of an order of %s by order id: %d statement(s) on %s%n",
              backend(), months.get(0), byOrder.size(), read);
        }
        List<String> orderById = physicalStatements(() ->
            assertThat(longs(c, "SELECT id FROM t_order WHERE id = ?", order)).containsExactly(order));
        assertThat(tables(orderById)).containsExactly(databaseOf(order) + "/t_order_" + monthOf(order));
      }
    }
    assertThat(twoTables).as("orders whose lookup read two months").isPositive();
  }

  @Test
  void aOneMonthReportReadsOnlyThatMonthsTables() throws SQLException {
    Instant from = boundary.atZone(ZoneOffset.UTC).minusMonths(1).toInstant();
    long expected = itemsByOrder.values().stream().flatMap(List::stream).filter(i -> monthOf(i).equals(months.get(0)))
        .count();
    try (Connection c = sharded.getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM t_item WHERE id >= ? AND id < ?")) {
      ps.setLong(1, LAYOUT.firstIdAt(from));
      ps.setLong(2, LAYOUT.firstIdAt(boundary));
      List<String> report = physicalStatements(() -> {
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          assertThat(rs.getLong(1)).isEqualTo(expected);
        }
      });
      assertThat(tables(report)).containsExactlyInAnyOrder("ds_0/t_item_" + months.get(0),
          "ds_1/t_item_" + months.get(0));
      List<String> neither = physicalStatements(() ->
          assertThat(longs(c, "SELECT id FROM t_item WHERE name = ?", "after midnight")).hasSize(4));
      assertThat(tables(neither)).hasSize(6);
      System.out.printf("%s GENE_INTERVAL: a one-month report: %d statement(s) on %s; by no sharding column: %d"
          + " statement(s) on %d tables%n", backend(), report.size(), tables(report), neither.size(),
          tables(neither).size());
    }
  }

  @Test
  void aChildPastTheLagIsRefusedNamingBothIdsAndTheProperty() throws SQLException {
    AtomicLong later = new AtomicLong(boundary.atZone(ZoneOffset.UTC).plusMonths(1).toInstant().toEpochMilli() + 1);
    GeneSnowflakeGenerator other = GeneSnowflakeGenerator.builder().workerId(201).clock(later::get).buildUnshared();
    long child = other.nextIdFor(boundaryOrder);
    try (Connection c = sharded.getConnection();
        PreparedStatement ps = c.prepareStatement("INSERT INTO t_item (id, order_id, name) VALUES (?, ?, ?)")) {
      ps.setLong(1, child);
      ps.setLong(2, boundaryOrder);
      ps.setString(3, "too late");
      Throwable refused = catchThrowable(ps::executeUpdate);
      assertThat(refused).as("the insert must be refused").isNotNull();
      assertThat(messages(refused)).contains("child id " + child).contains("its parent's id " + boundaryOrder)
          .contains("more than max-child-lag = 1 allows");
    }
    try (Connection c = databases.physical(databaseOf(boundaryOrder)).getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM t_item_" + months.get(2) + " WHERE id = ?")) {
      ps.setLong(1, child);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        assertThat(rs.getLong(1)).as("nothing stored").isZero();
      }
    }
  }

  // ---------------------------------------------------------------- helpers

  private static String monthOf(long id) {
    return LAYOUT.decode(id).timestamp().atZone(ZoneOffset.UTC).format(MONTH);
  }

  private static String databaseOf(long id) {
    return "ds_" + LAYOUT.geneOf(id) % 2;
  }

  private static String messages(Throwable t) {
    StringBuilder all = new StringBuilder();
    for (Throwable e = t; e != null; e = e.getCause()) {
      all.append(e.getMessage()).append('\n');
    }
    return all.toString();
  }

  interface SqlRunnable {
    void run() throws SQLException;
  }

  private List<String> physicalStatements(SqlRunnable query) throws SQLException {
    databases.statements.clear();
    query.run();
    synchronized (databases.statements) {
      return new ArrayList<>(databases.statements);
    }
  }

  /** Every "ds/table" the logged statements touch. */
  static Set<String> tables(List<String> logged) {
    Set<String> result = new LinkedHashSet<>();
    for (String s : logged) {
      String ds = s.substring(0, s.indexOf(' '));
      Matcher m = PHYSICAL_TABLE.matcher(s);
      while (m.find()) {
        result.add(ds + "/" + m.group(1));
      }
    }
    return result;
  }

  private static List<Long> longs(Connection c, String sql, Object parameter) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setObject(1, parameter);
      try (ResultSet rs = ps.executeQuery()) {
        List<Long> result = new ArrayList<>();
        while (rs.next()) {
          result.add(rs.getLong(1));
        }
        return result;
      }
    }
  }

  private long insertOrder(Connection c, long id, String customer) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO t_order (id, customer) VALUES (?, ?)")) {
      ps.setLong(1, id);
      ps.setString(2, customer);
      assertThat(ps.executeUpdate()).isEqualTo(1);
    }
    itemsByOrder.put(id, new ArrayList<>());
    return id;
  }

  private void insertItem(Connection c, long id, long order, String name) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO t_item (id, order_id, name) VALUES (?, ?, ?)")) {
      ps.setLong(1, id);
      ps.setLong(2, order);
      ps.setString(3, name);
      assertThat(ps.executeUpdate()).isEqualTo(1);
    }
    itemsByOrder.get(order).add(id);
  }

  private long insertGeneratedOrder(Connection c, String customer) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO t_order (customer) VALUES (?)",
        Statement.RETURN_GENERATED_KEYS)) {
      ps.setString(1, customer);
      assertThat(ps.executeUpdate()).isEqualTo(1);
      long id = key(ps);
      itemsByOrder.put(id, new ArrayList<>());
      return id;
    }
  }

  private void insertGeneratedItem(Connection c, long order) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO t_item (order_id, name) VALUES (?, ?)",
        Statement.RETURN_GENERATED_KEYS)) {
      ps.setLong(1, order);
      ps.setString(2, "now");
      assertThat(ps.executeUpdate()).isEqualTo(1);
      itemsByOrder.get(order).add(key(ps));
    }
  }

  private static long key(PreparedStatement ps) throws SQLException {
    try (ResultSet rs = ps.getGeneratedKeys()) {
      assertThat(rs.next()).isTrue();
      return rs.getLong(1);
    }
  }
}
