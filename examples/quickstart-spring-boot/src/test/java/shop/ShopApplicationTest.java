package shop;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The application as {@code main} runs it, on two embedded H2 databases in place of MariaDB's {@code shop_0} and
 * {@code shop_1}: its own {@code sharding.yaml} with the data sources' driver and URL swapped, and the tables of
 * {@code shop.sql} created in each. Its runner inserts an order and an item; the item lands in its order's table.
 * On MariaDB as written: {@code ReadmeQuickStartTest} (gene-id-spring-boot-autoconfigure, {@code -Pservices}).
 */
class ShopApplicationTest {

  @TempDir Path dir;

  @Test
  void theRunnerPutsTheItemInItsOrdersTable() throws Exception {
    String run = "shop_" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36)
        .toLowerCase(Locale.ROOT);
    String sharding = Files.readString(Path.of("src/main/resources/sharding.yaml"), StandardCharsets.UTF_8)
        .replace("org.mariadb.jdbc.Driver", "org.h2.Driver");
    String ddl = Files.readString(Path.of("shop.sql"), StandardCharsets.UTF_8);
    for (int d = 0; d < 2; d++) {
      String mariadb = "'jdbc:mariadb://127.0.0.1:3306/shop_" + d + "'";
      assertThat(sharding).contains(mariadb);
      sharding = sharding.replace(mariadb, "'" + h2(run, d) + "'");
      try (Connection c = DriverManager.getConnection(h2(run, d), "root", ""); Statement s = c.createStatement()) {
        for (String statement : tables(ddl, d)) {
          s.execute(statement);
        }
      }
    }
    Path shardingFile = Files.writeString(dir.resolve("sharding.yaml"), sharding);
    // ShopApplication.main's one line, with the H2 data sources; the context is closed here, not left running
    try (ConfigurableApplicationContext context = SpringApplication.run(ShopApplication.class,
        "--spring.datasource.url=jdbc:shardingsphere:absolutepath:" + shardingFile)) {
      assertThat(context.isActive()).isTrue();
    }
    int orderTable = -1;
    int itemTable = -1;
    for (int t = 0; t < 4; t++) { // GENE_MOD_AUTO over 4 tables: table t in shop_(t % 2)
      if (count(h2(run, t % 2), "t_order_" + t) > 0) {
        orderTable = t;
      }
      if (count(h2(run, t % 2), "t_order_item_" + t) > 0) {
        itemTable = t;
      }
    }
    assertThat(orderTable).as("the order's table").isNotNegative();
    assertThat(itemTable).as("the item's table").isEqualTo(orderTable);
  }

  private static String h2(String run, int d) {
    return "jdbc:h2:mem:" + run + "_" + d
        + ";MODE=MYSQL;IGNORECASE=TRUE;CASE_INSENSITIVE_IDENTIFIERS=TRUE;DB_CLOSE_DELAY=-1";
  }

  /** The statements of shop.sql after its {@code -- in shop_<d>} line, without their {@code shop_<d>.} qualifier. */
  static List<String> tables(String ddl, int d) {
    List<String> statements = new ArrayList<>();
    boolean mine = false;
    for (String line : ddl.split("\n")) {
      if (line.startsWith("-- in shop_")) {
        mine = line.trim().equals("-- in shop_" + d);
      } else if (mine && !line.isBlank()) {
        statements.add(line.trim().replaceAll(";$", "").replace(" shop_" + d + ".", " "));
      }
    }
    assertThat(statements).as("the tables of shop_%s", d).hasSize(4);
    return statements;
  }

  private static int count(String url, String table) throws Exception {
    try (Connection c = DriverManager.getConnection(url, "root", ""); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
      rs.next();
      return rs.getInt(1);
    }
  }
}
