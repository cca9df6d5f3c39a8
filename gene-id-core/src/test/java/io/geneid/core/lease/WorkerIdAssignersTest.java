package io.geneid.core.lease;

import io.geneid.core.testing.TestTime;
import io.geneid.core.snowflake.LeasedGeneGenerator;

import io.geneid.core.snowflake.LeasedGenerators;

import io.geneid.core.settings.SettingsReader;
import io.geneid.core.GeneIdException;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.snowflake.GeneIdRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkerIdAssignersTest {

  @TempDir Path dir;

  @Test
  void unknownKeysFailNamingTheKey() {
    assertThatThrownBy(() -> WorkerIdAssigners.create(Map.of("worker-id", "1", "redis-url", "x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("worker-assigner=static has no property 'redis-url'; allowed: ");
  }

  @Test
  void anUnknownTypeNamesTheTypesFound() {
    assertThatThrownBy(() -> WorkerIdAssigners.create(Map.of("worker-assigner", "zookeeper")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("worker-assigner must be one of [static] but was 'zookeeper'");
    assertThatThrownBy(() -> WorkerIdAssigners.create(Map.of("worker-assigner", "redis")))
        .hasMessage("worker-assigner must be one of [static] but was 'redis': add io.geneid:gene-id-redis to the "
            + "class path");
  }

  @Test
  void badValuesNameTheKeyAndTheRule() {
    assertThatThrownBy(() -> WorkerIdAssigners.create(Map.of("worker-id", "x")))
        .hasMessage("worker-id must be a whole number in [0, 2147483647] but was 'x'");
    assertThatThrownBy(() -> WorkerIdAssigners.create(Map.of("worker-id", "1", "lease-ttl", "soon")))
        .hasMessage("lease-ttl must be a duration such as 30s, 1500ms or PT30S but was 'soon'");
    assertThatThrownBy(() -> WorkerIdAssigners.create(Map.of("worker-id", "1", "lease-ttl", "10ms")))
        .hasMessage("lease-ttl must be in [100ms, 3600000ms] but was 10ms");
    assertThatThrownBy(() -> WorkerIdAssigners.create(Map.of("worker-id", "1", "space", "a b")))
        .hasMessage("space must be 1 to 64 characters of A-Z a-z 0-9 . _ - but was 'a b'");
    assertThatThrownBy(() -> WorkerIdAssigners.create(Map.of()))
        .hasMessage("worker-assigner=static needs exactly one of worker-id and worker-id-from-hostname=true");
  }

  @Test
  void checkValidatesWithoutCreatingAnAssigner() {
    Map<String, String> props = Map.of("worker-id", "7", "mark-file", dir.resolve("never").toString(),
        "gene-bits", "4", "sequence-bits", "10");
    assertThat(LeasedGenerators.check(props)).isEqualTo(GeneIdLayout.builder().geneBits(4).sequenceBits(10).build());
    assertThat(dir.resolve("never")).doesNotExist();
    assertThat(dir.resolve("never.lock")).doesNotExist();
    assertThatThrownBy(() -> LeasedGenerators.check(Map.of("worker-id", "1", "redis-url", "x")))
        .hasMessageStartingWith("worker-assigner=static has no property 'redis-url'; allowed: ");
    assertThatThrownBy(() -> LeasedGenerators.check(Map.of("worker-id", "1", "gene-bits", "7")))
        .hasMessageContaining("must be 63 (the defaults are 41 + 8 + 8 + 6) but was 64");
    assertThatThrownBy(() -> LeasedGenerators.check(Map.of("worker-id", "1", "lease-renew-interval", "5s")))
        .hasMessage("lease-renew-interval must be in [10ms, 5000ms) (below lease-ttl) but was 5000ms");
  }

  @Test
  void textAndTypedValuesOfOneConfigurationNameOneSharedGenerator() {
    Map<String, Object> typed = Map.of("worker-id", 9L, "lease-ttl", Duration.ofSeconds(2), "epoch",
        java.time.Instant.parse("2025-01-01T00:00:00Z"));
    Map<String, String> text = Map.of("worker-id", "9", "lease-ttl", "2000ms", "epoch", "2025-01-01");
    assertThat(WorkerIdAssigners.canonicalKey("static", SettingsReader.of(typed)))
        .isEqualTo(WorkerIdAssigners.canonicalKey("static", SettingsReader.of(text)));
  }

  @Test
  void staticAssignerFromHostnameOrdinal() {
    WorkerIdAssigner a = WorkerIdAssigners.create(Map.of("worker-id-from-hostname", "true", "hostname", "orders-3",
        "worker-id-min", "8", "space", "orders"));
    assertThat(a).isInstanceOf(StaticWorkerIdAssigner.class);
    assertThat(((StaticWorkerIdAssigner) a).workerId()).isEqualTo(11);
    assertThat(a.space()).isEqualTo("orders");
  }

  @Test
  void sharedGeneratorIsOnePerConfiguration() {
    Map<String, String> props = Map.of("worker-id", "9", "mark-file", dir.resolve("m").toString(),
        "gene-bits", "4", "sequence-bits", "10", "lease-ttl", TestTime.seconds(2).toMillis() + "ms");
    GeneIdRegistry.Handle<LeasedGeneGenerator> first = LeasedGenerators.sharedGenerator(props);
    LeasedGeneGenerator generator = first.generator();
    try (GeneIdRegistry.Handle<LeasedGeneGenerator> second = LeasedGenerators.sharedGenerator(Map.copyOf(props))) {
      assertThat(second).isNotSameAs(first);
      assertThat(second.generator()).isSameAs(generator);
      assertThat(first.geneBits()).isEqualTo(4);
      assertThat(generator.workerId()).isEqualTo(9);
      assertThat(GeneIdRegistry.allShared()).contains(generator);
    } finally {
      first.close();
    }
    assertThat(GeneIdRegistry.allShared()).doesNotContain(generator);
    assertThatThrownBy(generator::nextId).hasMessage("this LeasedGeneGenerator of space 'default' is closed: it "
        + "issues no ids");
  }

  /**
   * #11 scenario 10: Spring and ShardingSphere share one leased generator. Before: both got the same
   * LeasedGeneGenerator, so Spring's destroy method closed it under ShardingSphere (whose next id failed with "is
   * closed"), and each generator added a JVM shutdown hook of its own.
   */
  @Test
  void oneUserClosingItsHandleLeavesTheOtherIssuingAndTheLastCloseReleasesTheLease() {
    Path mark = dir.resolve("w13.mark");
    // the generator runs on the system clock and must keep issuing: 1 s at the tests' time scale
    Map<String, String> props = Map.of("worker-id", "13", "mark-file", mark.toString(), "space", "counted",
        "lease-ttl", TestTime.seconds(1).toMillis() + "ms");
    GeneIdRegistry.Handle<LeasedGeneGenerator> spring = LeasedGenerators.sharedGenerator(props);
    GeneIdRegistry.Handle<LeasedGeneGenerator> sharding = LeasedGenerators.sharedGenerator(props);
    LeasedGeneGenerator generator = spring.generator();
    assertThat(sharding.generator()).isSameAs(generator);
    String key = WorkerIdAssigners.canonicalKey("static", SettingsReader.of(props));
    assertThat(GeneIdRegistry.users(key)).isEqualTo(2);

    spring.close();
    assertThat(GeneIdRegistry.users(key)).isEqualTo(1);
    assertThat(generator.isIssuing()).isTrue();
    assertThat(sharding.nextId()).isPositive();
    assertThatThrownBy(spring::nextId).isInstanceOf(GeneIdException.class).hasMessageContaining("is closed");
    // the lease is still held: the worker id's lock file is taken
    assertThatThrownBy(() -> StaticWorkerIdAssigner.builder().space("counted").workerId(13).markFile(mark).build()
        .acquire(255, Duration.ofMillis(10)))
        .isInstanceOf(GeneIdException.class).hasMessageContaining("is in use by another generator on this host");

    Instant last = generator.highWaterMark();
    sharding.close();
    assertThat(GeneIdRegistry.users(key)).isZero();
    assertThat(generator.isIssuing()).isFalse();
    assertThat(GeneIdRegistry.allShared()).doesNotContain(generator);
    // released: the mark is recorded and the worker id is free for the next holder
    try (StaticWorkerIdAssigner next = StaticWorkerIdAssigner.builder().space("counted").workerId(13).markFile(mark)
        .build()) {
      assertThat(next.acquire(255, Duration.ofMillis(10)).previousHighWaterMark()).isAfterOrEqualTo(last);
    }
    // and a new call creates a new generator
    try (GeneIdRegistry.Handle<LeasedGeneGenerator> again = LeasedGenerators.sharedGenerator(props)) {
      assertThat(again.generator()).isNotSameAs(generator);
      assertThat(again.nextId()).isPositive();
    }
  }
}
