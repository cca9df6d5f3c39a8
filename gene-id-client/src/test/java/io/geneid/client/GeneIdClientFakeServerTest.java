package io.geneid.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.GeneIdException;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.testing.TestTime;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The client against {@link FakeServer}s that misbehave on purpose: ids of the wrong gene, a server that hangs, one
 * that answers 503 or a body that is not JSON. (The real server's behaviour: {@code GeneIdClientServerTest}.)
 */
class GeneIdClientFakeServerTest {

  private FakeServer a;
  private FakeServer b;
  private GeneIdClient client;

  @AfterEach
  void tearDown() {
    if (client != null) {
      client.close();
    }
    if (a != null) {
      a.close();
    }
    if (b != null) {
      b.close();
    }
  }

  private void twoServers() throws IOException {
    a = new FakeServer(GeneIdLayout.defaults(), 1);
    b = new FakeServer(GeneIdLayout.defaults(), 2);
  }

  private GeneIdClient.Builder clientOf(String... urls) {
    return GeneIdClient.builder().addresses(urls).requestTimeout(TestTime.seconds(3)).retryRounds(0)
        .retryPause(Duration.ofMillis(10)).batchSize(50);
  }

  @Test
  void aServerThatAnswersIdsOfAnotherGeneIsPassedOverAndItsIdsAreNeverHandedOut() throws IOException {
    twoServers();
    a.mode = FakeServer.Mode.WRONG_GENE;
    client = clientOf(a.url(), b.url()).build();
    for (int i = 0; i < 200; i++) {
      long gene = i % 64;
      assertThat(client.nextId(gene) & 63).isEqualTo(gene);
    }
    assertThat(a.idRequests.get()).as("the wrong-gene server was asked").isPositive();
    assertThat(b.idRequests.get()).as("the good server gave the ids").isPositive();
  }

  @Test
  void anAttemptThatHangsIsAbandonedAfterTheRequestTimeoutAndTheNextAddressAnswers() throws IOException {
    twoServers();
    a.mode = FakeServer.Mode.HANG;
    long timeout = TestTime.millis(1_500); // the time-out this test measures: 1.5 s at the time scale
    client = clientOf(a.url(), b.url()).requestTimeout(Duration.ofMillis(timeout)).build();
    long start = System.nanoTime();
    long id = client.nextIdFor(7L);
    long millis = (System.nanoTime() - start) / 1_000_000;
    assertThat(id & 63).isEqualTo(7);
    assertThat(millis).as("one time-out, then the second address")
        .isBetween(timeout - 100, timeout + TestTime.millis(8_500));
    // the client now starts at the address that answered: no second time-out
    start = System.nanoTime();
    client.nextIdFor(8L);
    assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(timeout - 100);
  }

  @Test
  void whenNoServerAnswersTheErrorNamesEveryAddressTriedAndWhatHappenedThere() throws IOException {
    twoServers();
    a.mode = FakeServer.Mode.UNAVAILABLE;
    b.mode = FakeServer.Mode.NOT_JSON;
    int dead = freePort();
    client = clientOf(a.url(), b.url(), "http://127.0.0.1:" + dead).retryRounds(1).build();
    assertThatThrownBy(() -> client.nextIdFor(3L))
        .isInstanceOf(GeneServerUnavailableException.class)
        .hasMessageStartingWith("no gene-id server answered GET /v1/ids after 2 round(s) over 3 address(es): ")
        .hasMessageContaining(a.url() + " (HTTP 503 unavailable: fenced: the lease lapsed)")
        .hasMessageContaining(b.url() + " (answered 200 with a body that is not a JSON object)")
        .hasMessageContaining("http://127.0.0.1:" + dead + " (connection refused)")
        .satisfies(e -> assertThat(((GeneServerUnavailableException) e).addresses()).hasSize(6)
            .containsOnly(URI.create(a.url()), URI.create(b.url()), URI.create("http://127.0.0.1:" + dead)))
        .hasCauseInstanceOf(IllegalStateException.class);
    // the servers come back: the next call gets an id
    a.mode = FakeServer.Mode.OK;
    assertThat(client.nextIdFor(3L) & 63).isEqualTo(3);
  }

  @Test
  void aRefusalIsThrownAtOnceWithTheServersCodeAndNotRetriedElsewhere() throws IOException {
    twoServers();
    client = clientOf(a.url(), b.url()).build();
    assertThatThrownBy(() -> client.segments("unknown").nextId())
        .isInstanceOfSatisfying(GeneServerRefusedException.class, e -> {
          assertThat(e.status()).isEqualTo(404);
          assertThat(e.code()).isEqualTo("unknown_key");
          assertThat(e.reason()).isEqualTo("segment key 'unknown' is not configured");
          assertThat(e.address()).isEqualTo(URI.create(a.url()));
        })
        .hasMessage("gene-id server " + a.url() + " refused the request: HTTP 404 unknown_key: segment key"
            + " 'unknown' is not configured");
  }

  @Test
  void aServerOnAnotherGeneWidthIsRefused() throws IOException {
    a = new FakeServer(GeneIdLayout.defaults().toBuilder().geneBits(5).workerBits(9).build(), 1);
    client = clientOf(a.url()).geneBits(6).build();
    assertThatThrownBy(() -> client.nextId(1))
        .isInstanceOf(GeneServerUnavailableException.class)
        .hasMessageContaining("its ids carry 5 gene bits but this client is configured for 6");
  }

  @Test
  void serversOfOneClientMustShareOneLayout() throws IOException {
    a = new FakeServer(GeneIdLayout.defaults(), 1);
    b = new FakeServer(GeneIdLayout.defaults().toBuilder().sequenceBits(7).workerBits(9).build(), 2);
    a.mode = FakeServer.Mode.UNAVAILABLE; // the client reads a's info, then passes a over for b
    client = clientOf(a.url(), b.url()).build();
    assertThatThrownBy(() -> client.nextId(1))
        .isInstanceOf(GeneServerUnavailableException.class)
        .hasMessageContaining(b.url() + " (its layout ")
        .hasMessageContaining("all servers of a client must share one layout");
  }

  @Test
  void theBufferIsRefilledInTheBackgroundBelowTheLowWaterMark() throws Exception {
    twoServers();
    client = clientOf(a.url()).batchSize(100).lowWaterMark(20).build();
    Set<Long> seen = new HashSet<>();
    seen.add(client.nextId(5));
    assertThat(a.idRequests.get()).isEqualTo(1);
    for (int i = 0; i < 78; i++) {
      assertThat(seen.add(client.nextId(5))).isTrue();
    }
    assertThat(a.idRequests.get()).as("21 left: no refill yet").isEqualTo(1);
    assertThat(seen.add(client.nextId(5))).isTrue(); // 20 left: the refill starts
    long deadline = System.nanoTime() + TestTime.seconds(5).toNanos();
    while (client.bufferedIds() < 120 && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(client.bufferedIds()).as("20 left + 100 fetched ahead").isEqualTo(120);
    assertThat(a.idRequests.get()).isEqualTo(2);
    for (int i = 0; i < 120; i++) {
      long id = client.nextId(5);
      assertThat(id & 63).isEqualTo(5);
      assertThat(seen.add(id)).as("id %d handed out twice", id).isTrue();
    }
  }

  @Test
  void segmentIdsTakeTheGeneAskedForFromOneBufferPerKey() throws IOException {
    twoServers();
    client = clientOf(a.url()).build();
    var orders = client.segments("order");
    assertThat(client.segments("order")).isSameAs(orders);
    Set<Long> values = new HashSet<>();
    for (int i = 0; i < 300; i++) {
      long gene = (i * 7) % 64;
      long id = orders.nextId(gene);
      assertThat(id & 63).isEqualTo(gene);
      assertThat(values.add(id >>> 6)).as("segment value of %d handed out twice", id).isTrue();
    }
    long parent = client.nextId();
    assertThat(orders.getGene(orders.nextIdFor(parent))).isEqualTo(client.getGene(parent));
    long root = orders.nextId();
    assertThat(root & 63).as("a root segment id's gene is its value's low bits").isEqualTo((root >>> 6) & 63);
  }

  @Test
  void aBatchLargerThanTheBufferIsFetchedForTheCallerAlone() throws IOException {
    twoServers();
    client = clientOf(a.url()).batchSize(50).requestTimeout(TestTime.seconds(20)).build();
    long[] ids = client.nextIdsFor(9L, 12_345);
    assertThat(ids).hasSize(12_345);
    assertThat(Set.of(java.util.Arrays.stream(ids).boxed().toArray(Long[]::new))).hasSize(12_345);
    assertThat(java.util.Arrays.stream(ids).allMatch(id -> (id & 63) == 9)).isTrue();
    assertThat(a.idRequests.get()).as("10000 + 2345: split at the server's maxCount").isEqualTo(2);
    assertThat(client.bufferedIds()).isZero();
  }

  @Test
  void afterCloseEveryCallFailsAndBufferedIdsAreDropped() throws IOException {
    twoServers();
    client = clientOf(a.url()).build();
    client.nextId(1);
    assertThat(client.bufferedIds()).isPositive();
    client.close();
    assertThat(client.bufferedIds()).isZero();
    assertThatThrownBy(() -> client.nextId(1)).isInstanceOf(GeneIdException.class).hasMessageContaining("is closed");
    assertThatThrownBy(() -> client.segments("order")).isInstanceOf(GeneIdException.class)
        .hasMessageContaining("is closed");
  }

  @Test
  void theBuilderNamesTheBadValueAndItsRange() {
    assertThatThrownBy(() -> GeneIdClient.builder().build())
        .hasMessage("addresses must name at least one gene-id server, such as http://127.0.0.1:8080");
    assertThatThrownBy(() -> GeneIdClient.builder().addresses("ftp://x"))
        .hasMessage("address must be an http or https URL with a host and no query, fragment or user info, such as"
            + " http://127.0.0.1:8080, but was 'ftp://x'");
    assertThatThrownBy(() -> GeneIdClient.builder().batchSize(0)).hasMessage("batchSize must be in [1, 65536] but was 0");
    assertThatThrownBy(() -> GeneIdClient.builder().lowWaterMark(-1))
        .hasMessage("lowWaterMark must be in [0, 65536] but was -1");
    assertThatThrownBy(() -> GeneIdClient.builder().retryRounds(11)).hasMessage("retryRounds must be in [0, 10] but was 11");
    assertThatThrownBy(() -> GeneIdClient.builder().requestTimeout(Duration.ZERO))
        .hasMessage("requestTimeout must be in [1ms, 600000ms] but was 0ms");
    assertThatThrownBy(() -> GeneIdClient.builder().geneBits(17)).hasMessage("geneBits must be in [0, 16] but was 17");
    assertThatThrownBy(() -> GeneIdClient.builder().bearerToken("secret value"))
        .hasMessage("bearerToken must be 1 or more visible ASCII characters without spaces (the value is not shown)");
    assertThatThrownBy(() -> GeneIdClient.builder().addresses("http://127.0.0.1:1").build().segments("a b"))
        .hasMessage("segment key must be 1 to 128 of A-Z a-z 0-9 . _ - : but was 'a b'");
  }

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
