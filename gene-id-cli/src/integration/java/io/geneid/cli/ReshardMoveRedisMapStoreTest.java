package io.geneid.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.geneid.core.bucket.BucketMap;
import io.geneid.jdbc.JdbcBucketMapStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code reshard move} and {@code status} on the H2 fixture with the map in the Redis on 127.0.0.1:6379. */
class ReshardMoveRedisMapStoreTest extends AbstractReshardMoveCommandTest {

  /** The same with the map in Redis (the shared server on 127.0.0.1:6379, keys under a prefix of this test). */
  @Test
  void takesARedisMapStoreFromTheAlgorithmsProperties() throws Exception {
    String keyPrefix = "gid-cli-test-" + prefix + ":";
    Files.writeString(yaml, Files.readString(yaml).replace("""
                sharding-count: 2
                gene-bits: 3
        """, """
                sharding-count: 2
                gene-bits: 3
                map-store: redis
                map-store-url: "redis://127.0.0.1:6379"
                map-store-key-prefix: "%s"
                map-name: shop
        """.formatted(keyPrefix)));
    io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create("redis://127.0.0.1:6379");
    try (var connection = client.connect()) {
      CliRun move = CliRun.of("reshard", "move", "--config", yaml.toString(), "--algorithm", "gene_db", "--to", "4",
          "--settle", "0ms");
      assertThat(move.status()).as(move.err()).isZero();
      assertThat(move.out()).startsWith("map store                  redis://127.0.0.1:6379, key prefix " + keyPrefix
          + ", map 'shop'\n");
      CliRun status = CliRun.of("reshard", "status", "--config", yaml.toString(), "--algorithm", "gene_db");
      assertThat(status.status()).as(status.err()).isZero();
      assertThat(status.out()).contains("    MOVED                  4: ");
      List<String> keys = connection.sync().keys(keyPrefix + "*");
      assertThat(keys).isNotEmpty();
      connection.sync().del(keys.toArray(String[]::new));
    } finally {
      client.shutdown();
    }
  }
}
