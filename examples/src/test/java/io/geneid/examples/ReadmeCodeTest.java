package io.geneid.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.io.DefaultResourceLoader;

/**
 * Every {@code java} block of the README compiles as a reader copies it, imports included: a block that declares a
 * type is a source file of its own, a block of statements (quick start 3) is compiled as the body of a method. Quick
 * start 3 then runs as written, and quick start 1's application runs with its own {@code application.yaml} and
 * {@code sharding.yaml}, on embedded H2 databases in place of MariaDB (the data sources' driver and URL swapped, its
 * DDL run per database); its item must land in its order's table. The same quick start on MariaDB, as written, is
 * {@code ReadmeQuickStartTest} in the Spring Boot starter's integration tests.
 */
class ReadmeCodeTest {

  private static final Pattern JAVA = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);
  private static final Pattern TYPE = Pattern.compile("^(public |final |abstract )*(class|interface|record|enum) (\\w+)",
      Pattern.MULTILINE);

  @TempDir Path dir;

  @Test
  void everyJavaBlockCompilesAndQuickStartsOneAndThreeRun() throws Exception {
    String readme = Files.readString(Path.of("..", "README.md"), StandardCharsets.UTF_8);
    List<Path> sources = new ArrayList<>();
    List<String> statementBlocks = new ArrayList<>();
    Matcher m = JAVA.matcher(readme);
    while (m.find()) {
      int line = readme.substring(0, m.start()).split("\n", -1).length;
      sources.add(source(m.group(1), line, statementBlocks));
    }
    assertThat(sources).as("java blocks of the README").hasSizeGreaterThanOrEqualTo(3);
    Path classes = Files.createDirectories(dir.resolve("classes"));
    compile(sources, classes);

    try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()},
        getClass().getClassLoader())) {
      for (String block : statementBlocks) {
        Method run = loader.loadClass(block).getMethod("run");
        run.invoke(null); // quick start 3 as written
      }
      runQuickStartOne(readme, loader);
    }
  }

  /** Writes a block as a source file (a block of statements as the body of {@code run()}); returns the file. */
  private Path source(String code, int line, List<String> statementBlocks) throws Exception {
    Matcher type = TYPE.matcher(code);
    if (type.find()) {
      Matcher pkg = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE).matcher(code);
      Path folder = pkg.find() ? dir.resolve("src").resolve(pkg.group(1).replace('.', '/')) : dir.resolve("src");
      return Files.writeString(Files.createDirectories(folder).resolve(type.group(3) + ".java"), code);
    }
    StringBuilder imports = new StringBuilder();
    StringBuilder body = new StringBuilder();
    for (String l : code.split("\n")) {
      (l.startsWith("import ") ? imports : body).append(l).append('\n');
    }
    String name = "ReadmeLine" + line;
    statementBlocks.add("readme." + name);
    String unit = "package readme;\n" + imports + "public class " + name + " {\n"
        + "  public static void run() throws Exception {\n" + body + "  }\n}\n";
    return Files.writeString(Files.createDirectories(dir.resolve("src/readme")).resolve(name + ".java"), unit);
  }

  private static void compile(List<Path> sources, Path classes) {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    List<String> args = new ArrayList<>(List.of("-d", classes.toString(), "-proc:none", "-Xlint:none",
        "-classpath", System.getProperty("java.class.path")));
    sources.forEach(s -> args.add(s.toString()));
    int rc = javac.run(null, null, null, args.toArray(String[]::new));
    assertThat(rc).as("javac on the README's java blocks (its messages are above)").isZero();
  }

  /** Quick start 1's application, files and DDL as the README gives them, on two H2 databases. */
  private void runQuickStartOne(String readme, ClassLoader loader) throws Exception {
    Matcher m = Pattern.compile("## Quick start 1:.*?`src/main/resources/application.yaml`:\\s*```yaml\\n(.*?)```"
        + ".*?```yaml\\n(.*?)```.*?```sql\\n(.*?)```", Pattern.DOTALL).matcher(readme);
    assertThat(m.find()).as("application.yaml, sharding.yaml and the DDL of quick start 1").isTrue();
    String run = "qs1_" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36)
        .toLowerCase(Locale.ROOT);
    String sharding = m.group(2).replace("org.mariadb.jdbc.Driver", "org.h2.Driver");
    for (int d = 0; d < 2; d++) {
      String mariadb = "'jdbc:mariadb://127.0.0.1:3306/shop_" + d + "'";
      assertThat(sharding).contains(mariadb);
      sharding = sharding.replace(mariadb, "'" + h2(run, d) + "'");
      try (Connection c = DriverManager.getConnection(h2(run, d), "root", ""); Statement s = c.createStatement()) {
        for (String statement : ddl(m.group(3), d)) {
          s.execute(statement);
        }
      }
    }
    Path application = Files.writeString(dir.resolve("application.yaml"), m.group(1));
    Path shardingFile = Files.writeString(dir.resolve("sharding.yaml"), sharding);
    Class<?> app = loader.loadClass("shop.ShopApplication");
    Thread thread = Thread.currentThread();
    ClassLoader before = thread.getContextClassLoader();
    thread.setContextClassLoader(loader);
    // this module logs through slf4j-simple; Spring Boot's own logging system would insist on Logback
    String loggingSystem = System.setProperty("org.springframework.boot.logging.LoggingSystem", "none");
    try (ConfigurableApplicationContext context = new SpringApplicationBuilder(app)
        .resourceLoader(new DefaultResourceLoader(loader))
        .run("--spring.config.location=file:" + application,
            "--spring.datasource.url=jdbc:shardingsphere:absolutepath:" + shardingFile)) {
      assertThat(context.isActive()).isTrue();
    } finally {
      thread.setContextClassLoader(before);
      if (loggingSystem == null) {
        System.clearProperty("org.springframework.boot.logging.LoggingSystem");
      } else {
        System.setProperty("org.springframework.boot.logging.LoggingSystem", loggingSystem);
      }
    }
    // the runner inserted one order and one item: both in the same table index, in data source index % 2
    int orderTable = -1;
    int itemTable = -1;
    for (int t = 0; t < 4; t++) {
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

  /** The README's CREATE TABLE statements of database {@code d}, unqualified (H2 has one schema per database). */
  private static List<String> ddl(String ddl, int d) {
    List<String> statements = new ArrayList<>();
    for (String line : ddl.split("\n")) {
      String prefix = "CREATE TABLE shop_" + d + ".";
      if (line.startsWith(prefix)) {
        statements.add("CREATE TABLE " + line.substring(prefix.length()).replaceAll(";$", ""));
      }
    }
    assertThat(statements).as("CREATE TABLE shop_%s.* statements", d).hasSize(4);
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
