package io.geneid.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.GeneClock;
import io.geneid.core.GeneIdException;
import io.geneid.core.GeneSegmentGenerator;
import io.geneid.core.TcpProxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@link GeneSegmentGenerator} over {@link JdbcSegmentStore} on H2, MariaDB and PostgreSQL. */
class JdbcSegmentGeneratorTest {

  /** A clock the test moves. */
  private final AtomicLong now = new AtomicLong(1_800_000_000_000L);
  private final GeneClock clock = now::get;

  @ParameterizedTest
  @EnumSource(SegmentDatabase.Kind.class)
  void threadsOfTwoGeneratorsOnOneTableNeverIssueTheSameId(SegmentDatabase.Kind kind) throws Exception {
    try (SegmentDatabase db = SegmentDatabase.create(kind)) {
      DataSource ds = db.pool();
      JdbcSegmentStore.builder(ds).build().createTable();
      // two stores and generators: as two applications sharing the table
      try (GeneSegmentGenerator g1 = generator(JdbcSegmentStore.builder(ds).build(), 10, 100, GeneClock.system());
          GeneSegmentGenerator g2 = generator(JdbcSegmentStore.builder(ds).build(), 10, 100, GeneClock.system())) {
        int threads = 4;
        int perThread = 25_000;
        Set<Long> ids = ConcurrentHashMap.newKeySet();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
          List<Future<?>> futures = new ArrayList<>();
          for (int t = 0; t < threads; t++) {
            GeneSegmentGenerator g = t % 2 == 0 ? g1 : g2;
            futures.add(pool.submit(() -> {
              for (int i = 0; i < perThread; i++) {
                long parent = i * 7919L;
                long id = (i & 1) == 0 ? g.nextId() : g.nextIdFor(parent);
                if ((i & 1) == 1 && g.getGene(id) != (parent & 63)) {
                  throw new AssertionError("id " + id + " does not carry the gene of " + parent);
                }
                if (!ids.add(id)) {
                  throw new AssertionError("duplicate id " + id);
                }
              }
            }));
          }
          for (Future<?> f : futures) {
            f.get();
          }
        } finally {
          pool.shutdownNow();
        }
        assertThat(ids).hasSize(threads * perThread).allMatch(id -> id > 0);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(SegmentDatabase.Kind.class)
  void aRestartedGeneratorContinuesAboveEveryValueHandedOutBefore(SegmentDatabase.Kind kind) {
    try (SegmentDatabase db = SegmentDatabase.create(kind)) {
      DataSource ds = db.pool();
      JdbcSegmentStore store = JdbcSegmentStore.builder(ds).build();
      store.createTable();
      long highestBefore = 0;
      try (GeneSegmentGenerator first = generator(store, 100, 1000, clock)) {
        for (int i = 0; i < 2_500; i++) {
          highestBefore = Math.max(highestBefore, first.valueOf(first.nextId()));
        }
        await(() -> first.status().nextReady()); // a prefetched segment that will never be used
      }
      long maxId = maxId(ds, "order");
      assertThat(maxId).isGreaterThan(highestBefore);

      DataSource other = db.pool(); // a new process: new pool, new store
      try (GeneSegmentGenerator second = generator(JdbcSegmentStore.builder(other).build(), 100, 1000, clock)) {
        long firstValue = second.valueOf(second.nextId());
        assertThat(firstValue).isEqualTo(maxId + 1);
        for (int i = 0; i < 1_000; i++) {
          assertThat(second.valueOf(second.nextId())).isGreaterThan(highestBefore);
        }
      }
    }
  }

  @ParameterizedTest
  @EnumSource(value = SegmentDatabase.Kind.class, names = {"MARIADB", "POSTGRESQL"})
  void aDatabaseOutageIsRiddenOutThenFailsClearlyThenResumesWithoutReuse(SegmentDatabase.Kind kind)
      throws Exception {
    try (SegmentDatabase db = SegmentDatabase.create(kind);
        TcpProxy proxy = new TcpProxy("127.0.0.1", kind.port)) {
      DataSource ds = db.pool(db.url(proxy.port()), 2);
      JdbcSegmentStore store = JdbcSegmentStore.builder(ds).build();
      store.createTable();
      try (GeneSegmentGenerator g = generator(store, 100, 100, clock)) {
        Set<Long> values = new HashSet<>();
        for (int i = 0; i < 10; i++) {
          values.add(g.valueOf(g.nextId()));
        }
        await(() -> g.status().nextReady());

        proxy.stop();
        for (int i = 0; i < 190; i++) { // the rest of the current segment and all of the prefetched one
          assertThat(values.add(g.valueOf(g.nextId()))).isTrue();
        }
        assertThatThrownBy(g::nextId).isInstanceOf(GeneIdException.class)
            .hasMessageStartingWith("no ids left for tag 'order': its segments are used up and the segment store "
                + "JdbcSegmentStore[table=gene_id_segment] failed to hand out the next segment: ")
            .cause().isInstanceOf(GeneIdException.class)
            .hasMessageStartingWith("the JDBC segment store (table gene_id_segment) could not hand out 100 values "
                + "of tag 'order': ");

        proxy.start();
        long resumed = issueOnceTheStoreIsBack(g);
        assertThat(values.add(resumed)).isTrue();
        for (int i = 0; i < 300; i++) {
          long v = g.valueOf(g.nextId());
          assertThat(v).isGreaterThan(200);
          assertThat(values.add(v)).as("value %d reused", v).isTrue();
        }
        assertThat(values).hasSize(501);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(SegmentDatabase.Kind.class)
  void theStepGrowsForAFastConsumerAndShrinksForASlowOne(SegmentDatabase.Kind kind) {
    try (SegmentDatabase db = SegmentDatabase.create(kind)) {
      DataSource ds = db.pool();
      JdbcSegmentStore store = JdbcSegmentStore.builder(ds).build();
      store.createTable();
      try (GeneSegmentGenerator g = GeneSegmentGenerator.builder(store, "order").clock(clock).minStep(10)
          .maxStep(640).segmentDuration(Duration.ofSeconds(1)).build()) {
        for (int i = 0; i < 5_000; i++) { // the clock stands still: as fast as can be
          g.nextId();
        }
        await(() -> g.status().nextReady());
        assertThat(lastStep(ds, "order")).isEqualTo(640);

        for (int i = 0; i < 2_500; i++) { // one id a second: a one-second segment would hold one value
          now.addAndGet(1_000);
          g.nextId();
        }
        await(() -> g.status().nextReady());
        assertThat(lastStep(ds, "order")).isEqualTo(10);
      }
    }
  }

  // ---------------------------------------------------------------- helpers

  private static GeneSegmentGenerator generator(JdbcSegmentStore store, long minStep, long maxStep,
      GeneClock clock) {
    return GeneSegmentGenerator.builder(store, "order").minStep(minStep).maxStep(maxStep).clock(clock).build();
  }

  /** The pool reconnects on its own schedule: each failure until then must be the clear one. */
  private static long issueOnceTheStoreIsBack(GeneSegmentGenerator g) {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (true) {
      try {
        return g.valueOf(g.nextId());
      } catch (GeneIdException e) {
        assertThat(e).hasMessageStartingWith("no ids left for tag 'order'");
        if (System.nanoTime() > deadline) {
          throw new AssertionError("the generator did not resume within 20 s after the database came back", e);
        }
      }
    }
  }

  static void await(BooleanSupplier condition) {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not met within 10 s");
      }
      Thread.onSpinWait();
      Thread.yield();
    }
  }

  private static long maxId(DataSource ds, String tag) {
    return column(ds, tag, "max_id");
  }

  private static long lastStep(DataSource ds, String tag) {
    return column(ds, tag, "step");
  }

  private static long column(DataSource ds, String tag, String column) {
    try (Connection c = ds.getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT " + column + " FROM gene_id_segment WHERE biz_tag = '" + tag + "'")) {
      assertThat(rs.next()).isTrue();
      return rs.getLong(1);
    } catch (java.sql.SQLException e) {
      throw new AssertionError(e);
    }
  }
}
