package io.geneid.mybatis.h2;

import static org.assertj.core.api.Assertions.assertThat;

import com.baomidou.mybatisplus.annotation.IdType;
import com.baomidou.mybatisplus.annotation.TableId;
import com.baomidou.mybatisplus.annotation.TableName;
import com.baomidou.mybatisplus.core.config.GlobalConfig;
import com.baomidou.mybatisplus.core.mapper.BaseMapper;
import com.baomidou.mybatisplus.core.toolkit.GlobalConfigUtils;
import com.baomidou.mybatisplus.extension.service.impl.ServiceImpl;
import com.baomidou.mybatisplus.extension.spring.MybatisSqlSessionFactoryBean;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.geneid.core.bucket.BucketMap;
import io.geneid.core.bucket.BucketMapRouter;
import io.geneid.core.bucket.BucketState;
import io.geneid.jdbc.JdbcBucketMapStore;
import io.geneid.jdbc.JdbcBucketMover;
import io.geneid.shardingsphere.GeneBucketShardingAlgorithm;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.apache.ibatis.executor.BatchResult;
import org.apache.ibatis.session.ExecutorType;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;
import org.apache.shardingsphere.driver.api.yaml.YamlShardingSphereDataSourceFactory;
import org.apache.shardingsphere.driver.jdbc.core.connection.ShardingSphereConnection;
import org.apache.shardingsphere.sharding.rule.ShardingRule;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mybatis.spring.mapper.MapperFactoryBean;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Issue #38: MyBatis-Plus {@code saveBatch} (MyBatis's BATCH executor: JDBC {@code addBatch}, then
 * {@code executeBatch}) through ShardingSphere (GENE_BUCKET, GENE_BUCKET_FREEZE) while {@link JdbcBucketMover} moves
 * bucket 2 from database 0 to database 2 of four H2 databases. Each batch is either refused with the retryable
 * SQLState 40001 or every row it acknowledged is found by its id after the move and after {@code cleanup}; never
 * acknowledged and then lost.
 */
class SaveBatchDuringMoveTest {

  static final int BUCKET = 2;
  static final int ORDERS = 5;

  /** Rows of t_order, routed by id; the id is given (a gene id, e.g. from GeneIdentifierGenerator earlier). */
  @TableName("t_order")
  static class MovingOrder {
    @TableId(type = IdType.INPUT)
    Long id;
    String customer;

    MovingOrder(long id, String customer) {
      this.id = id;
      this.customer = customer;
    }

    MovingOrder() {}
  }

  /** Registered by {@link Config} (no {@code @Mapper}: MybatisPlusH2Test's scan of this package must not see it). */
  interface MovingOrderMapper extends BaseMapper<MovingOrder> {}

  /** saveBatch lives on MyBatis-Plus's ServiceImpl. */
  static class MovingOrderService extends ServiceImpl<MovingOrderMapper, MovingOrder> {}

  /** The Spring wiring of a plain (non-Boot) application over the ShardingSphere data source (a bean given). */
  @Configuration
  static class Config {
    @Bean
    MybatisSqlSessionFactoryBean sqlSessionFactory(DataSource dataSource) {
      MybatisSqlSessionFactoryBean factory = new MybatisSqlSessionFactoryBean();
      factory.setDataSource(dataSource);
      factory.setGlobalConfig(GlobalConfigUtils.defaults().setBanner(false));
      return factory;
    }

    @Bean
    MapperFactoryBean<MovingOrderMapper> movingOrderMapper(SqlSessionFactory factory) {
      MapperFactoryBean<MovingOrderMapper> bean = new MapperFactoryBean<>(MovingOrderMapper.class);
      bean.setSqlSessionFactory(factory);
      return bean;
    }

    @Bean
    PlatformTransactionManager transactionManager(DataSource dataSource) {
      return new DataSourceTransactionManager(dataSource);
    }

    @Bean
    MovingOrderService movingOrderService() {
      return new MovingOrderService();
    }
  }

  private final List<HikariDataSource> pools = new ArrayList<>();
  private final List<HikariDataSource> moverPools = new ArrayList<>();
  private final List<String> databases = new ArrayList<>();
  private HikariDataSource storePool;
  private DataSource sharded;
  private JdbcBucketMapStore store;
  private BucketMap start;
  private BucketMapRouter router;
  private GeneBucketShardingAlgorithm algorithm;
  private AnnotationConfigApplicationContext context;
  /** Every order's id to its customer, as acknowledged. */
  private final Map<Long, String> acknowledged = new TreeMap<>();

  @BeforeEach
  void setUp() throws Exception {
    String run = "gid_mpmove_" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
    Map<String, DataSource> dataSources = new LinkedHashMap<>();
    for (int d = 0; d < 4; d++) {
      HikariConfig config = new HikariConfig();
      config.setJdbcUrl("jdbc:h2:mem:" + run + "_" + d
          + ";MODE=MYSQL;IGNORECASE=TRUE;CASE_INSENSITIVE_IDENTIFIERS=TRUE;DB_CLOSE_DELAY=-1");
      config.setUsername("sa");
      config.setPassword("");
      config.setMaximumPoolSize(10);
      config.setPoolName(run + "_" + d);
      HikariDataSource pool = new HikariDataSource(config);
      pools.add(pool);
      databases.add(config.getJdbcUrl());
      try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
        for (int t = 0; t < 2; t++) {
          s.execute("CREATE TABLE t_order_" + t + " (id BIGINT PRIMARY KEY, customer VARCHAR(64) NOT NULL)");
          s.execute("CREATE TABLE t_item_" + t
              + " (id BIGINT PRIMARY KEY, order_id BIGINT NOT NULL, name VARCHAR(64) NOT NULL)");
        }
      }
      dataSources.put("ds_" + d, pool);
    }
    sharded = YamlShardingSphereDataSourceFactory.createDataSource(dataSources,
        YAML.getBytes(StandardCharsets.UTF_8));
    HikariConfig storeConfig = new HikariConfig();
    storeConfig.setJdbcUrl("jdbc:h2:mem:" + run + "_store;DB_CLOSE_DELAY=-1");
    storePool = new HikariDataSource(storeConfig);
    store = JdbcBucketMapStore.builder().dataSource(storePool).createTable(true).build();
    GeneBucketShardingAlgorithm db = algorithm(sharded, "gene_db");
    algorithm = db;
    start = db.map().withVersion(1);
    assertThat(store.compareAndSet("orders", -1, start)).isTrue();
    assertThat(start.target(BUCKET)).as("bucket 2 starts on database 0").isZero();
    router = BucketMapRouter.builder(store, "orders").routerId("app-1").refreshInterval(Duration.ofMillis(50))
        .staleAfter(Duration.ofSeconds(10)).onNewMap(db::useMap).build();
    router.start();
    db.follow(router);

    context = new AnnotationConfigApplicationContext();
    context.registerBean("dataSource", DataSource.class, () -> sharded);
    context.register(Config.class);
    context.refresh();
    MovingOrderMapper mapper = context.getBean(MovingOrderMapper.class);
    for (int gene : new int[] {BUCKET, 3, 6}) { // orders of bucket 2 and others exist
      for (int n = 0; n < ORDERS; n++) {
        long id = order(gene, n);
        assertThat(mapper.insert(new MovingOrder(id, "c" + id))).isEqualTo(1);
        acknowledged.put(id, "c" + id);
      }
    }
  }

  @AfterEach
  void tearDown() throws Exception {
    if (context != null) {
      context.close();
    }
    if (router != null) {
      router.close();
    }
    if (sharded != null) {
      try {
        ((AutoCloseable) sharded).close();
      } catch (Exception ignored) {
        // closed with the context already
      }
    }
    moverPools.forEach(HikariDataSource::close);
    for (HikariDataSource pool : pools) {
      try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
        s.execute("SHUTDOWN");
      } catch (SQLException ignored) {
        // dropped anyway
      }
      pool.close();
    }
    if (storePool != null) {
      storePool.close();
    }
  }

  // (a) ServiceImpl.saveBatch while bucket 2 is FROZEN (during the copy), from the mover's listener

  @Test
  void saveBatchWhileTheBucketIsFrozen() throws Exception {
    MovingOrderService service = context.getBean(MovingOrderService.class);
    TransactionTemplate tx = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
    List<MovingOrder> batch = batch(100);
    AtomicReference<String> outcome = new AtomicReference<>("not run");
    boolean[] once = {false};
    mover(p -> {
      if (once[0] || store.load("orders").orElseThrow().state(BUCKET) != BucketState.FROZEN) {
        return;
      }
      once[0] = true;
      outcome.set(saveBatch(tx, service, batch));
    }).moveTo(moved());
    report("saveBatch while FROZEN", outcome.get(), batch);
  }

  // (b) a BATCH-executor session: statements added before the move, flushed and committed after it; as MyBatis-Spring
  // gives it outside a Spring transaction (its connection in auto-commit, whatever openSession was asked) and inside one

  @Test
  void batchSessionAddedBeforeTheMoveAndFlushedAfterIt() throws Exception {
    List<MovingOrder> batch = batch(200);
    report("BATCH session flushed after the move", batchSession(batch), batch);
  }

  @Test
  void batchSessionInASpringTransactionAddedBeforeTheMoveAndFlushedAfterIt() throws Exception {
    TransactionTemplate tx = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
    List<MovingOrder> batch = batch(300);
    String outcome;
    try {
      outcome = tx.execute(status -> {
        String o = batchSession(batch);
        if (!o.startsWith("acknowledged")) {
          status.setRollbackOnly();
        }
        return o;
      });
    } catch (RuntimeException e) {
      outcome = refusal(e); // the commit refused
    }
    report("BATCH session in a Spring transaction, flushed after the move", outcome, batch);
  }

  private String batchSession(List<MovingOrder> batch) {
    SqlSessionFactory factory = context.getBean(SqlSessionFactory.class);
    try (SqlSession session = factory.openSession(ExecutorType.BATCH, false)) {
      MovingOrderMapper mapper = session.getMapper(MovingOrderMapper.class);
      for (MovingOrder o : batch) { // addBatch: routed (and audited) now, while bucket 2 is NORMAL on database 0
        mapper.insert(o);
      }
      mover(p -> { }).moveTo(moved());
      try {
        List<BatchResult> results = session.flushStatements();
        session.commit();
        int[] counts = results.stream().flatMapToInt(r -> Arrays.stream(r.getUpdateCounts())).toArray();
        return "acknowledged, update counts " + Arrays.toString(counts);
      } catch (RuntimeException e) {
        session.rollback(true);
        return refusal(e);
      }
    }
  }

  /** 5 orders of bucket 2 and 5 of bucket 3, interleaved, numbered from {@code from}. */
  private List<MovingOrder> batch(int from) {
    List<MovingOrder> batch = new ArrayList<>();
    for (int n = from; n < from + ORDERS; n++) {
      batch.add(new MovingOrder(order(BUCKET, n), "batched"));
      batch.add(new MovingOrder(order(3, n), "batched"));
    }
    return batch;
  }

  private static String saveBatch(TransactionTemplate tx, MovingOrderService service, List<MovingOrder> batch) {
    try {
      Boolean saved = tx.execute(status -> service.saveBatch(batch, 4));
      return "acknowledged (saveBatch returned " + saved + ")";
    } catch (RuntimeException e) {
      return refusal(e);
    }
  }

  /** "refused 40001 (...)" when the cause chain holds SQLState 40001; otherwise the failure is rethrown. */
  private static String refusal(RuntimeException e) {
    List<String> chain = new ArrayList<>();
    String state = null;
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Throwable t = e; t != null && seen.add(t); t = t.getCause()) {
      chain.add(t.getClass().getSimpleName());
      SQLException s = t instanceof SQLException sql ? sql : null;
      for (int n = 0; s != null && n < 16; n++, s = s.getNextException()) { // and a batch's next exceptions
        if ("40001".equals(s.getSQLState())) {
          state = "40001";
        }
      }
    }
    if (state == null) {
      throw new AssertionError("neither acknowledged nor refused with SQLState 40001: " + chain, e);
    }
    return "refused 40001 " + chain + ": " + firstLine(e);
  }

  private static String firstLine(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String m = String.valueOf(root.getMessage());
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }

  /**
   * Prints what happened and checks it: if the batch was acknowledged, every row of it is found by its id after the
   * move and after cleanup; if it was refused, the rows it wrote all the same (a batch outside a transaction commits
   * per database) are found by their ids too. Then every order written is found by its id, once, with its content.
   */
  private void report(String what, String outcome, List<MovingOrder> batch) throws SQLException {
    boolean acked = outcome.startsWith("acknowledged");
    awaitRouter(); // moveTo returns once MOVED is stored; scans are refused until the router has it
    Map<Long, String> written = new TreeMap<>(scan());
    written.keySet().retainAll(batch.stream().map(o -> o.id).toList());
    if (acked) {
      batch.forEach(o -> acknowledged.put(o.id, o.customer));
    } else {
      assertThat(outcome).startsWith("refused 40001");
      acknowledged.putAll(written); // written by a refused batch: it must not be stranded either
    }
    String afterMove = found(batch);
    long deleted = mover(p -> { }).cleanup("test");
    awaitRouter();
    String afterCleanup = found(batch);
    System.out.printf("#38 %s: %s; batch rows a scan finds after the move: %d of %d; found by id after the move: %s,"
        + " after cleanup (%d rows deleted): %s%n", what, outcome, written.size(), batch.size(), afterMove, deleted,
        afterCleanup);
    assertThat(store.load("orders").orElseThrow().target(BUCKET)).as("bucket 2 moved").isEqualTo(2);
    if (acked) {
      assertThat(afterMove).as("acknowledged rows found by id after the move").isEqualTo(batch.size() + " of "
          + batch.size());
      assertThat(afterCleanup).as("acknowledged rows found by id after cleanup").isEqualTo(batch.size() + " of "
          + batch.size());
    }
    assertEveryOrderOnceAsAcknowledged();
  }

  private void awaitRouter() throws SQLException {
    long stored = store.load("orders").orElseThrow().version();
    long giveUp = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (algorithm.map().version() < stored && System.nanoTime() < giveUp) {
      Thread.onSpinWait();
    }
    assertThat(algorithm.map().version()).as("the router follows the map").isGreaterThanOrEqualTo(stored);
  }

  private Map<Long, String> scan() throws SQLException {
    Map<Long, String> found = new TreeMap<>();
    try (Connection c = sharded.getConnection();
         PreparedStatement ps = c.prepareStatement("SELECT id, customer FROM t_order");
         ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        assertThat(found.put(rs.getLong(1), rs.getString(2))).as("order %d twice", rs.getLong(1)).isNull();
      }
    }
    return found;
  }

  private String found(List<MovingOrder> batch) throws SQLException {
    int found = 0;
    List<Long> missing = new ArrayList<>();
    try (Connection c = sharded.getConnection();
         PreparedStatement ps = c.prepareStatement("SELECT customer FROM t_order WHERE id = ?")) {
      for (MovingOrder o : batch) {
        ps.setLong(1, o.id);
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            found++;
          } else {
            missing.add(o.id);
          }
        }
      }
    }
    return found + " of " + batch.size() + (missing.isEmpty() ? "" : " (missing " + missing + ")");
  }

  private void assertEveryOrderOnceAsAcknowledged() throws SQLException {
    assertThat(scan()).as("every order once, as acknowledged").isEqualTo(acknowledged);
    try (Connection c = sharded.getConnection();
         PreparedStatement ps = c.prepareStatement("SELECT customer FROM t_order WHERE id = ?")) {
      for (Map.Entry<Long, String> e : acknowledged.entrySet()) {
        ps.setLong(1, e.getKey());
        try (ResultSet rs = ps.executeQuery()) {
          assertThat(rs.next()).as("order %d by its id", e.getKey()).isTrue();
          assertThat(rs.getString(1)).isEqualTo(e.getValue());
        }
      }
    }
  }

  private JdbcBucketMover mover(Consumer<JdbcBucketMover.Progress> listener) {
    List<DataSource> targets = new ArrayList<>();
    for (String url : databases) { // the mover's own connections, not ShardingSphere's
      HikariConfig config = new HikariConfig();
      config.setJdbcUrl(url);
      config.setUsername("sa");
      config.setPassword("");
      config.setMaximumPoolSize(3);
      HikariDataSource pool = new HikariDataSource(config);
      moverPools.add(pool);
      targets.add(pool);
    }
    return JdbcBucketMover.builder(store, "orders")
        .targets(Map.of(0, targets.get(0), 1, targets.get(1), 2, targets.get(2), 3, targets.get(3)))
        .tables(List.of(new JdbcBucketMover.Table("id", b -> "t_order_" + (b / 2) % 2),
            new JdbcBucketMover.Table("order_id", b -> "t_item_" + (b / 2) % 2)))
        .batchSize(2).settle(Duration.ofMillis(20)).routerWait(Duration.ofSeconds(20))
        .liveWindow(Duration.ofSeconds(20)).transactionWait(Duration.ofSeconds(10)).progressListener(listener)
        .build();
  }

  private BucketMap moved() {
    return start.withTarget(BUCKET, 2);
  }

  private static long order(int gene, int n) {
    return (1000L + n) << 6 | gene;
  }

  private static GeneBucketShardingAlgorithm algorithm(DataSource sharded, String name) throws SQLException {
    try (Connection c = sharded.getConnection()) {
      ShardingSphereConnection ss = c.unwrap(ShardingSphereConnection.class);
      ShardingRule rule = ss.getContextManager().getDatabase(ss.getCurrentDatabaseName()).getRuleMetaData()
          .getSingleRule(ShardingRule.class);
      return (GeneBucketShardingAlgorithm) rule.getShardingAlgorithms().get(name);
    }
  }

  /** gene-id-shardingsphere's GeneBucketFreezeTest.yaml() over ds_0..ds_3: GENE_BUCKET, GENE_BUCKET_FREEZE. */
  static final String YAML = """
      databaseName: gene_mp_move
      rules:
      - !SHARDING
        tables:
          t_order:
            actualDataNodes: ds_${0..3}.t_order_${0..1}
            databaseStrategy:
              standard:
                shardingColumn: id
                shardingAlgorithmName: gene_db
            tableStrategy:
              standard:
                shardingColumn: id
                shardingAlgorithmName: gene_table
            auditStrategy:
              auditorNames: [gene_freeze]
              allowHintDisable: false
          t_item:
            actualDataNodes: ds_${0..3}.t_item_${0..1}
            databaseStrategy:
              complex:
                shardingColumns: id,order_id
                shardingAlgorithmName: gene_db
            tableStrategy:
              complex:
                shardingColumns: id,order_id
                shardingAlgorithmName: gene_table
            auditStrategy:
              auditorNames: [gene_freeze]
              allowHintDisable: false
        shardingAlgorithms:
          gene_db:
            type: GENE_BUCKET
            props:
              sharding-count: 2
          gene_table:
            type: GENE_BUCKET
            props:
              sharding-count: 2
              gene-divisor: 2
        auditors:
          gene_freeze:
            type: GENE_BUCKET_FREEZE
      props:
        sql-show: false
      """;
}
