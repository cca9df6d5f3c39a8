package io.geneid.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.GeneContext;
import io.geneid.core.GeneIdGenerator;
import io.geneid.core.Genes;
import io.geneid.core.testing.TestTime;
import io.geneid.server.GeneIdServer;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The client against real gene-id servers started in this JVM (two, workers 1 and 2, embedded defaults, segment keys
 * {@code order} and {@code item}).
 */
@SuppressWarnings("try") // a GeneContext scope is used by being open
class GeneIdClientServerTest {

  private static GeneIdServer first;
  private static GeneIdServer second;

  @BeforeAll
  static void startServers() {
    first = TestServers.start(1);
    second = TestServers.start(2);
  }

  @AfterAll
  static void stopServers() {
    if (first != null) {
      first.close();
    }
    if (second != null) {
      second.close();
    }
  }

  private static List<Long> genes(long[] ids) {
    List<Long> genes = new ArrayList<>();
    for (long id : ids) {
      genes.add(id & 63);
    }
    return genes;
  }

  private static GeneIdClient.Builder client(String... urls) {
    return GeneIdClient.builder().addresses(urls).requestTimeout(TestTime.seconds(5));
  }

  @Test
  void idsByGeneAndByParentKeyCarryTheGeneAskedFor() {
    try (GeneIdClient ids = client(TestServers.url(first)).geneBits(6).build()) {
      assertThat(ids.geneBits()).isEqualTo(6);
      assertThat(ids.layout().decode(ids.nextId()).workerId()).isEqualTo(1);
      for (long gene = 0; gene < 64; gene++) {
        assertThat(ids.getGene(ids.nextId(gene))).isEqualTo(gene);
      }
      long orderId = ids.nextId();
      UUID customer = UUID.fromString("3f2504e0-4f89-11d3-9a0c-0305e82c3301");
      for (int i = 0; i < 100; i++) {
        assertThat(ids.getGene(ids.nextIdFor(orderId))).isEqualTo(orderId & 63);
        assertThat(ids.getGene(ids.nextIdFor(-1L))).isEqualTo(63);
        assertThat(ids.getGene(ids.nextIdFor("customer-42"))).isEqualTo(Genes.of("customer-42", 6));
        assertThat(ids.getGene(ids.nextIdForKey(customer))).isEqualTo(Genes.of(customer.toString(), 6));
      }
      try (var scope = GeneContext.inherit(orderId)) {
        assertThat(ids.getGene(ids.nextId())).isEqualTo(orderId & 63);
        assertThat(genes(ids.nextIds(300))).containsOnly(orderId & 63);
      }
      try (var scope = GeneContext.inheritEach(List.of(5L, "customer-42", customer, 5L))) {
        assertThat(genes(ids.nextIds(4))).containsExactly(5L, Genes.of("customer-42", 6), Genes.of(customer.toString(), 6), 5L);
      }
      long[] batch = ids.nextIdsFor(orderId, 20_000);
      assertThat(batch).hasSize(20_000).doesNotHaveDuplicates();
      assertThat(genes(batch)).containsOnly(orderId & 63);
      long[] roots = ids.nextIds(640);
      assertThat(roots).doesNotHaveDuplicates();
      assertThat(Set.copyOf(genes(roots))).as("root ids spread over every gene").hasSize(64);

      GeneIdGenerator orders = ids.segments("order");
      for (long gene = 0; gene < 64; gene++) {
        assertThat(orders.nextId(gene) & 63).isEqualTo(gene);
      }
      assertThat(orders.getGene(orders.nextIdFor(orderId))).isEqualTo(orderId & 63);
      assertThat(orders.getGene(orders.nextIdFor("customer-42"))).isEqualTo(Genes.of("customer-42", 6));
    }
  }

  @Test
  void theBufferIsRefilledAheadSoCallersTakeIdsFromMemory() throws Exception {
    try (GeneIdClient ids = client(TestServers.url(first)).batchSize(200).lowWaterMark(50).build()) {
      Set<Long> seen = ConcurrentHashMap.newKeySet();
      seen.add(ids.nextId(9));
      assertThat(ids.bufferedIds()).isEqualTo(199);
      for (int i = 0; i < 148; i++) {
        seen.add(ids.nextId(9));
      }
      assertThat(ids.bufferedIds()).as("51 left: above the mark, no refill").isEqualTo(51);
      seen.add(ids.nextId(9)); // 50 left: the next batch is fetched in the background
      long deadline = System.nanoTime() + TestTime.seconds(10).toNanos();
      while (ids.bufferedIds() != 250 && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      assertThat(ids.bufferedIds()).isEqualTo(250);
      for (int i = 0; i < 250; i++) {
        seen.add(ids.nextId(9));
      }
      assertThat(seen).hasSize(400).allSatisfy(id -> assertThat(id & 63).isEqualTo(9));
    }
  }

  @Test
  void aDeadFirstAddressIsPassedOverWithinTheCall() {
    String dead = TestServers.deadAddress();
    try (GeneIdClient ids = client(dead, TestServers.url(second)).retryRounds(0).build()) {
      long id = ids.nextIdFor(42L);
      assertThat(id & 63).isEqualTo(42);
      assertThat(ids.layout().decode(id).workerId()).as("from the second server").isEqualTo(2);
    }
  }

  @Test
  void whenNoServerAnswersTheErrorNamesTheAddressesAndTheLastCause() {
    String a = TestServers.deadAddress();
    String b = TestServers.deadAddress();
    try (GeneIdClient ids = client(a, b).retryRounds(1).retryPause(Duration.ofMillis(10)).build()) {
      assertThatThrownBy(() -> ids.nextId(3))
          .isInstanceOf(GeneServerUnavailableException.class)
          .hasMessage("no gene-id server answered GET /v1/info after 2 round(s) over 2 address(es): " + a
              + " (connection refused), " + b + " (connection refused), " + a + " (connection refused), " + b
              + " (connection refused)")
          .satisfies(e -> assertThat(((GeneServerUnavailableException) e).addresses())
              .containsExactly(URI.create(a), URI.create(b), URI.create(a), URI.create(b)))
          .satisfies(e -> assertThat(e.getCause()).isInstanceOf(IllegalStateException.class)
              .hasMessage("connection refused").hasCauseInstanceOf(java.net.ConnectException.class));
    }
  }

  @Test
  void aKeyTheServerDoesNotServeAndAMissingTokenAreRefusedWithTheServersReason() {
    try (GeneIdClient ids = client(TestServers.url(first)).build()) {
      assertThatThrownBy(() -> ids.segments("payment").nextId())
          .isInstanceOfSatisfying(GeneServerRefusedException.class, e -> {
            assertThat(e.status()).isEqualTo(404);
            assertThat(e.code()).isEqualTo("unknown_key");
            assertThat(e.reason()).contains("'payment'");
          });
    }
    GeneIdServer guarded = TestServers.start(3, "auth-tokens", "s3cret-token-0123456789");
    try (guarded;
        GeneIdClient without = client(TestServers.url(guarded)).build();
        GeneIdClient with = client(TestServers.url(guarded)).bearerToken("s3cret-token-0123456789").build()) {
      assertThatThrownBy(() -> without.nextId(1))
          .isInstanceOfSatisfying(GeneServerRefusedException.class, e -> {
            assertThat(e.status()).isEqualTo(401);
            assertThat(e.code()).isEqualTo("unauthenticated");
          });
      assertThat(with.nextId(1) & 63).isEqualTo(1);
      assertThat(with.toString()).doesNotContain("s3cret");
    }
  }

  @Test
  void manyThreadsOverTwoServersGetNoDuplicateAndTheGenesTheyAskFor() throws Exception {
    int threads = 8;
    int perThread = 20_000;
    Set<Long> snowflakes = ConcurrentHashMap.newKeySet();
    Set<Long> segmentValues = ConcurrentHashMap.newKeySet();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try (GeneIdClient ids = client(TestServers.url(first), TestServers.url(second)).batchSize(500).build()) {
      GeneIdGenerator items = ids.segments("item");
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Integer>> results = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        results.add(pool.submit(() -> {
          start.await();
          ThreadLocalRandom random = ThreadLocalRandom.current();
          int bad = 0;
          for (int i = 0; i < perThread; i++) {
            long gene = random.nextInt(4); // few genes: threads contend on the same buffers
            long id;
            switch (i % 4) {
              case 0 -> id = ids.nextId(gene);
              case 1 -> id = ids.nextIdFor(gene + 64 * random.nextLong(1_000_000));
              case 2 -> {
                for (long batched : ids.nextIdsFor(gene, 3)) {
                  bad += (batched & 63) == gene && snowflakes.add(batched) ? 0 : 1;
                }
                id = ids.nextId(gene);
              }
              default -> {
                long segment = items.nextId(gene);
                bad += (segment & 63) == gene && segmentValues.add(segment >>> 6) ? 0 : 1;
                continue;
              }
            }
            bad += (id & 63) == gene && snowflakes.add(id) ? 0 : 1;
          }
          return bad;
        }));
      }
      start.countDown();
      int bad = 0;
      for (Future<Integer> f : results) {
        bad += f.get();
      }
      assertThat(bad).as("ids handed out twice or with another gene").isZero();
      assertThat(snowflakes).hasSize(threads * perThread / 4 * 6);
      assertThat(segmentValues).hasSize(threads * perThread / 4);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void whenAServerStopsTheClientGoesOnWithTheOtherAndNoIdRepeats() {
    GeneIdServer doomed = TestServers.start(4);
    Set<Long> seen = ConcurrentHashMap.newKeySet();
    try (GeneIdClient ids = client(TestServers.url(doomed), TestServers.url(second)).batchSize(100)
        .retryPause(Duration.ofMillis(10)).build()) {
      for (int i = 0; i < 1_000; i++) {
        assertThat(seen.add(ids.nextIdFor(17L))).isTrue();
      }
      doomed.close();
      for (int i = 0; i < 1_000; i++) {
        long id = ids.nextIdFor(17L);
        assertThat(id & 63).isEqualTo(17);
        assertThat(seen.add(id)).isTrue();
      }
      assertThat(seen.stream().map(id -> ids.layout().decode(id).workerId()).distinct())
          .containsExactlyInAnyOrder(4L, 2L);
    }
  }
}
