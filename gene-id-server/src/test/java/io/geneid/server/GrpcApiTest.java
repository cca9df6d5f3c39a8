package io.geneid.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.GeneIdLayout;
import io.geneid.core.GeneIdStringFormat;
import io.geneid.server.grpc.v1.DecodeReply;
import io.geneid.server.grpc.v1.DecodeRequest;
import io.geneid.server.grpc.v1.GeneIdServiceGrpc;
import io.geneid.server.grpc.v1.IdsReply;
import io.geneid.server.grpc.v1.InfoReply;
import io.geneid.server.grpc.v1.InfoRequest;
import io.geneid.server.grpc.v1.NextIdsRequest;
import io.geneid.server.grpc.v1.NextSegmentIdsRequest;
import io.geneid.server.grpc.v1.NextStringsRequest;
import io.geneid.server.grpc.v1.Parent;
import io.geneid.server.grpc.v1.RouteReply;
import io.geneid.server.grpc.v1.RouteRequest;
import io.geneid.server.grpc.v1.StringsReply;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.NettyChannelBuilder;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every gRPC method of gene_id.proto against a server in this JVM, with the same checks as the HTTP API. */
class GrpcApiTest {
  @TempDir static Path dir;
  static TestServer s;
  static ManagedChannel channel;
  static GeneIdServiceGrpc.GeneIdServiceBlockingStub stub;
  static final GeneIdLayout LAYOUT = GeneIdLayout.defaults();

  @BeforeAll
  static void start() {
    s = TestServer.startReady(dir, Map.of("worker-id", "12", "segment-keys", "order"));
    channel = NettyChannelBuilder.forAddress("127.0.0.1", s.server.grpcPort()).usePlaintext().build();
    stub = GeneIdServiceGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() throws InterruptedException {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    s.close();
  }

  @Test
  void nextIdsSpreadAndForEveryKindOfParent() {
    IdsReply spread = stub.nextIds(NextIdsRequest.newBuilder().setCount(64).build());
    assertThat(spread.getGene()).isEqualTo(-1);
    Set<Long> genes = new HashSet<>();
    spread.getIdsList().forEach(id -> genes.add(LAYOUT.geneOf(id)));
    assertThat(genes).hasSize(64);
    assertThat(stub.nextIds(NextIdsRequest.getDefaultInstance()).getIdsCount()).as("count 0 means 1").isEqualTo(1);
    UUID uuid = UUID.randomUUID();
    Map<Parent, Long> cases = Map.of(
        Parent.newBuilder().setGene(0).build(), 0L,
        Parent.newBuilder().setNumber(-1).build(), 63L,
        Parent.newBuilder().setNumber(1234567890123L).build(), LAYOUT.geneOf(1234567890123L),
        Parent.newBuilder().setText("customer-42").build(), LAYOUT.geneOf("customer-42"),
        Parent.newBuilder().setUuid(uuid.toString()).build(), LAYOUT.geneOfKey(uuid));
    cases.forEach((parent, gene) -> {
      IdsReply r = stub.nextIds(NextIdsRequest.newBuilder().setCount(100).setParent(parent).build());
      assertThat(r.getGene()).as("%s", parent).isEqualTo(gene.intValue());
      assertThat(r.getIdsList()).hasSize(100).allMatch(id -> LAYOUT.geneOf(id) == gene).isSorted();
      assertThat(LAYOUT.decode(r.getIds(0)).workerId()).isEqualTo(12);
    });
  }

  @Test
  void badInputIsInvalidArgumentWithTheReasonAndTheCode() {
    assertStatus(() -> stub.nextIds(NextIdsRequest.newBuilder().setCount(10_001).build()),
        Status.Code.INVALID_ARGUMENT, "invalid_argument", "count must be in [1, 10000] but was 10001");
    assertStatus(() -> stub.nextIds(NextIdsRequest.newBuilder().setCount(-1).build()),
        Status.Code.INVALID_ARGUMENT, "invalid_argument", "count must be in [1, 10000] but was 4294967295");
    assertStatus(() -> stub.nextIds(NextIdsRequest.newBuilder().setParent(Parent.newBuilder().setGene(64)).build()),
        Status.Code.INVALID_ARGUMENT, "invalid_argument", "gene must be in [0, 63] but was 64");
    assertStatus(() -> stub.nextIds(NextIdsRequest.newBuilder().setParent(Parent.newBuilder().setUuid("x")).build()),
        Status.Code.INVALID_ARGUMENT, "invalid_argument",
        "parentUuid must be a UUID of 36 characters (8-4-4-4-12 hexadecimal digits) but was 'x'");
    assertStatus(() -> stub.decode(DecodeRequest.getDefaultInstance()), Status.Code.INVALID_ARGUMENT,
        "invalid_argument", "give the id to decode: number or text");
    assertStatus(() -> stub.route(RouteRequest.newBuilder().setId(5).setShardingCount(0).build()),
        Status.Code.INVALID_ARGUMENT, "invalid_argument", "shardingCount must be in [1, 64] but was 0");
  }

  @Test
  void segmentIdsAndUnknownKeys() {
    IdsReply r = stub.nextSegmentIds(NextSegmentIdsRequest.newBuilder().setKey("order").setCount(500)
        .setParent(Parent.newBuilder().setGene(5)).build());
    assertThat(r.getIdsList()).hasSize(500).allMatch(id -> (id & 63) == 5).isSorted().doesNotHaveDuplicates();
    assertStatus(() -> stub.nextSegmentIds(NextSegmentIdsRequest.newBuilder().setKey("payment").build()),
        Status.Code.NOT_FOUND, "unknown_key", null);
    assertStatus(() -> stub.nextSegmentIds(NextSegmentIdsRequest.newBuilder().setKey("").build()),
        Status.Code.INVALID_ARGUMENT, "invalid_argument", null);
  }

  @Test
  void stringsDecodeRouteAndInfo() {
    StringsReply strings = stub.nextStrings(NextStringsRequest.newBuilder().setCount(2).setPrefix("ORD").setDate(true)
        .setParent(Parent.newBuilder().setText("customer-42")).build());
    GeneIdStringFormat f = GeneIdStringFormat.builder().prefix("ORD").date(LAYOUT).build();
    long id = f.parse(strings.getIds(0));
    assertThat(LAYOUT.geneOf(id)).isEqualTo(LAYOUT.geneOf("customer-42"));
    DecodeReply byText = stub.decode(DecodeRequest.newBuilder().setText(strings.getIds(0)).setPrefix("ORD")
        .setDate(true).build());
    DecodeReply byNumber = stub.decode(DecodeRequest.newBuilder().setNumber(id).build());
    assertThat(byText).isEqualTo(byNumber);
    var parts = LAYOUT.decode(id);
    assertThat(byNumber.getTimestampMillis()).isEqualTo(parts.timestamp().toEpochMilli());
    assertThat(byNumber.getTimestamp()).isEqualTo(parts.timestamp().toString());
    assertThat(byNumber.getWorkerId()).isEqualTo(12);
    assertThat(byNumber.getSequence()).isEqualTo(parts.sequence());
    RouteReply route = stub.route(RouteRequest.newBuilder().setId(id).setShardingCount(4).setGeneDivisor(2).build());
    assertThat(route.getIndex()).isEqualTo((int) ((LAYOUT.geneOf(id) / 2) % 4));
    RouteReply byParent = stub.route(RouteRequest.newBuilder().setParent(Parent.newBuilder().setText("customer-42"))
        .setShardingCount(4).setGeneDivisor(2).build());
    assertThat(byParent).isEqualTo(route);
    InfoReply info = stub.info(InfoRequest.getDefaultInstance());
    assertThat(List.of(info.getTimestampBits(), info.getWorkerBits(), info.getSequenceBits(), info.getGeneBits()))
        .containsExactly(41, 8, 8, 6);
    assertThat(info.getEpochMillis()).isEqualTo(1735689600000L);
    assertThat(info.getWorkerId()).isEqualTo(12);
    assertThat(info.getIssuing()).isTrue();
    assertThat(info.getMaxCount()).isEqualTo(10_000);
  }

  @Test
  void theStandardHealthServiceSaysServing() {
    HealthCheckResponse h = HealthGrpc.newBlockingStub(channel).check(HealthCheckRequest.getDefaultInstance());
    assertThat(h.getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
  }

  static void assertStatus(ThrowingCallable call, Status.Code code, String errorCode, String reason) {
    assertThatThrownBy(call).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
      assertThat(e.getStatus().getCode()).isEqualTo(code);
      assertThat(e.getTrailers().get(GrpcApi.ERROR_CODE)).isEqualTo(errorCode);
      if (reason != null) {
        assertThat(e.getStatus().getDescription()).isEqualTo(reason);
      }
    });
  }
}
