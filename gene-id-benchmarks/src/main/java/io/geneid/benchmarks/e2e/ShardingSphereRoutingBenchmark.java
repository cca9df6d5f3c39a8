package io.geneid.benchmarks.e2e;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Inserts per second and the latency of a query by parent id through ShardingSphere-JDBC, for each rule set
 * {@code e2e/<rules>.yaml}.
 *
 * <ul>
 *   <li>{@code snowflake}: built-in {@code SNOWFLAKE} key generator, items sharded by {@code MOD} of their own id:
 *       a query by parent id goes to every shard;
 *   <li>{@code gene}: {@code GENE_SNOWFLAKE} and {@code GENE_MOD}, items on a complex (item id, order id)
 *       strategy: a query by parent id goes to one shard.
 * </ul>
 *
 * <p>Adding a rule set takes no code: put its algorithms on this module's class path, add
 * {@code src/main/resources/e2e/<name>.yaml} (same tables, same data source names {@code ds_0 .. ds_3}) and add
 * {@code <name>} to {@link #rules} (or pass {@code -p rules=snowflake,<name>} to JMH). Child rows are always inserted
 * inside {@code GeneContext.inherit(orderId)}, which a gene-aware key generator uses and any other ignores.
 */
@State(Scope.Benchmark)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ShardingSphereRoutingBenchmark {

  /** Orders loaded at start; each has {@link #ITEMS_PER_ORDER} items. */
  static final int ORDERS = 256;
  static final int ITEMS_PER_ORDER = 4;

  @Param({"snowflake", "gene"})
  public String rules = "snowflake";

  RoutingFixture fixture;
  long[] orderIds;

  @Setup(Level.Trial)
  public void start() throws Exception {
    fixture = RoutingFixture.start(rules, ORDERS, ITEMS_PER_ORDER);
    orderIds = fixture.orderIds();
  }

  @TearDown(Level.Trial)
  public void stop() throws Exception {
    fixture.close();
  }

  /** One connection and its statements per benchmark thread. */
  @State(Scope.Thread)
  public static class Session {
    Connection connection;
    PreparedStatement insertItem;
    PreparedStatement itemsOfOrder;
    final SplittableRandom random = new SplittableRandom();
    final long[] routed = new long[1];

    @Setup(Level.Trial)
    public void open(ShardingSphereRoutingBenchmark benchmark) throws SQLException {
      connection = benchmark.fixture.dataSource().getConnection();
      insertItem = connection.prepareStatement(RoutingFixture.INSERT_ITEM);
      itemsOfOrder = connection.prepareStatement(RoutingFixture.ITEMS_OF_ORDER);
    }

    @TearDown(Level.Trial)
    public void close() throws SQLException {
      connection.close();
    }
  }

  /** Physical statements and queries of one iteration, reported by JMH as secondary metrics. */
  @AuxCounters(AuxCounters.Type.EVENTS)
  @State(Scope.Thread)
  public static class Routing {
    public long physicalStatements;
    public long queries;

    @Setup(Level.Iteration)
    public void reset() {
      physicalStatements = 0;
      queries = 0;
    }
  }

  /** One INSERT of a child row of a random order; the key generator makes its id. */
  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  public int insertChild(Session session) throws SQLException {
    long orderId = orderIds[session.random.nextInt(orderIds.length)];
    return RoutingFixture.insertItem(session.insertItem, orderId, 1);
  }

  /** The items of a random order, by parent id. */
  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public int queryByParent(Session session, Routing routing) throws SQLException {
    long orderId = orderIds[session.random.nextInt(orderIds.length)];
    int rows = RoutingFixture.itemsOf(session.itemsOfOrder, orderId, session.routed);
    routing.physicalStatements += session.routed[0];
    routing.queries++;
    return rows;
  }
}
