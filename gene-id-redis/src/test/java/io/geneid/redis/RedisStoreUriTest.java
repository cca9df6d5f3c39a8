package io.geneid.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.core.lease.WorkerIdAssigners;
import io.geneid.core.settings.InvalidSettingException;
import io.geneid.core.settings.SettingsReader;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.SlotHash;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The store URIs of one Redis, Sentinel and Cluster, and the slots of the keys a script touches; no Redis needed. */
class RedisStoreUriTest {

  private static final String SECRET = "s3cr3t,p@ss/w:rd";
  private static final String ENCODED = "s3cr3t%2Cp%40ss%2Fw%3Ard";

  @Test
  void aSentinelUriNamesTheSentinelsTheMasterAndTheDatabase() {
    RedisConnections.Target t = RedisConnections.parse("redis-uri",
        "redis-sentinel://:" + ENCODED + "@h1:26379,h2:26380/2#mymaster");
    assertThat(t.cluster()).isFalse();
    RedisURI uri = t.first();
    assertThat(uri.getSentinels()).extracting(RedisURI::getHost, RedisURI::getPort)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("h1", 26379), org.assertj.core.groups.Tuple.tuple("h2",
            26380));
    assertThat(uri.getSentinelMasterId()).isEqualTo("mymaster");
    assertThat(uri.getDatabase()).isEqualTo(2);
    assertThat(RedisConnections.describe(t)).isEqualTo("redis-sentinel://h1:26379,h2:26380/2#mymaster");
  }

  @Test
  void aClusterUriListsItsSeedsEachWithTheCredentials() {
    for (String text : List.of("redis-cluster://:" + ENCODED + "@h1:7000,h2:7001,h3:7002",
        "redis://:" + ENCODED + "@h1:7000,h2:7001,h3:7002")) {
      RedisConnections.Target t = RedisConnections.parse("redis-uri", text);
      assertThat(t.cluster()).as(text).isTrue();
      assertThat(t.uris()).extracting(RedisURI::getPort).containsExactly(7000, 7001, 7002);
      assertThat(t.uris()).allSatisfy(u -> assertThat(new String(u.getPassword())).isEqualTo(SECRET));
      assertThat(RedisConnections.describe(t)).isEqualTo("redis-cluster://h1:7000,h2:7001,h3:7002");
    }
    RedisConnections.Target one = RedisConnections.parse("redis-uri", "redis-cluster://h1:7000");
    assertThat(one.cluster()).isTrue();
    assertThat(RedisConnections.describe(one)).isEqualTo("redis-cluster://h1:7000");
    // one host with redis:// stays one Redis
    RedisConnections.Target single = RedisConnections.parse("redis-uri", "redis://:" + ENCODED + "@h1:6380/3");
    assertThat(single.cluster()).isFalse();
    assertThat(RedisConnections.describe(single)).isEqualTo("redis://h1:6380/3");
  }

  @Test
  void aBadSentinelOrClusterUriIsNamedByItsKeyWithoutThePassword() {
    assertThatThrownBy(() -> RedisConnections.parse("redis-uri", "redis-sentinel://:" + ENCODED + "@h1:26379/0"))
        .isInstanceOf(IllegalArgumentException.class)
        .isInstanceOf(InvalidSettingException.class)
        .hasMessage("redis-uri must be a redis-sentinel URI with the master's name (#<master name>, e.g. "
            + "redis-sentinel://host1:26379,host2:26379/0#mymaster) but was 'redis-sentinel://h1:26379/0'");
    assertThatThrownBy(() -> RedisConnections.parse("redis-uri", "redis-cluster://:" + ENCODED + "@h1:7000,h2:7001/2"))
        .hasMessage("redis-uri must be database 0 for a Redis Cluster, which has only database 0 but was "
            + "'redis-cluster://h1:7000,h2:7001/2' (database 2)");
    assertThatThrownBy(() -> RedisConnections.parse("redis-uri", "redis-cluster://:" + ENCODED + "@h1:7000,,h2:7001"))
        .hasMessage("redis-uri must be a Redis URI such as redis://127.0.0.1:6379/0 or redis://:password@host:6379/0"
            + " but was 'redis-cluster://(an address that cannot be shown without its user info)'"
            + " (IllegalArgumentException; a password with reserved "
            + "characters must be percent-encoded; Sentinel: redis-sentinel://[:password@]host1:26379,host2:26379/0"
            + "#mymaster, Cluster: redis-cluster://[:password@]host1:6379,host2:6379)")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("s3cr3t").doesNotContain(ENCODED));
    assertThatThrownBy(() -> RedisConnections.parse("redis-uri", "redis-cluster://:" + ENCODED + "@"))
        .hasMessageStartingWith("redis-uri must be a Redis URI such as")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("s3cr3t").doesNotContain(ENCODED));
  }

  @Test
  void theLeasePropertiesAcceptSentinelAndClusterUrisAndNameABadOne() {
    RedisWorkerIdAssignerProvider provider = new RedisWorkerIdAssignerProvider();
    for (String uri : List.of("redis-sentinel://h1:26379,h2:26379,h3:26379/0#mymaster",
        "redis-cluster://h1:7000,h2:7001", "redis://h1:7000,h2:7001")) {
      provider.check(SettingsReader.of(Map.of("worker-assigner", "redis", "redis-uri", uri)));
    }
    assertThatThrownBy(() -> provider.check(SettingsReader.of(Map.of("worker-assigner", "redis", "redis-uri",
        "redis-sentinel://:" + ENCODED + "@h1:26379"))))
        .hasMessageStartingWith("redis-uri must be a redis-sentinel URI with the master's name")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("s3cr3t").doesNotContain(ENCODED));
    // building from properties names the key too, before any connection is tried
    assertThatThrownBy(() -> WorkerIdAssigners.create(Map.of("worker-assigner", "redis", "redis-uri",
        "redis-cluster://:" + ENCODED + "@h1:7000/1")))
        .hasMessageStartingWith("redis-uri must be database 0 for a Redis Cluster");
  }

  @Test
  void everyKeyALeaseScriptTouchesIsInThePoolsSlotAndSegmentTagsSpread() {
    for (String space : List.of("default", "orders", "a}b", "a{b", "{x}", "x}", "é", "with space")) {
      String base = "gene-id:lease:{" + space + "}:"; // the layout of docs/leases.md
      int slot = SlotHash.getSlot(base + "meta");
      for (String key : List.of(base + "meta", base + "expiry", base + "w:0", base + "w:268435455")) {
        assertThat(SlotHash.getSlot(key)).as("slot of %s", key).isEqualTo(slot);
      }
    }
    // a segment counter is one key per tag, hashed whole: tags land in different slots
    Set<Integer> slots = new HashSet<>();
    for (int i = 0; i < 32; i++) {
      slots.add(SlotHash.getSlot("gene-id:segment:tag-" + i));
    }
    assertThat(slots).hasSizeGreaterThan(24);
  }
}
