package io.geneid.shardingsphere;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.bucket.BucketMap;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * Switching {@code GENE_MOD} to the {@code GENE_BUCKET} map {@link BucketMap#ofMod} builds moves no row: over the
 * same H2 databases, every id of every gene written through {@code GENE_MOD} is found through {@code GENE_BUCKET} on
 * the one physical table {@code GENE_MOD} wrote it to, and the check finds nothing wrong with either.
 */
class GeneBucketSwitchTest {

  private static final Pattern NODE = Pattern.compile("^(ds_\\d) ::: .*\\b(t_order_\\d)\\b");

  @Test
  void aGeneModConfigurationAndItsBucketMapRouteEveryIdIdentically() throws Exception {
    String modYaml = Rules.gene();
    String bucketYaml = Rules.gene().replace("type: GENE_MOD", "type: GENE_BUCKET")
        .replace("sharding-count: 2\n        gene-divisor: 2",
            "bucket-map: \"" + BucketMap.ofMod(6, 2, 2).format() + "\"")
        .replace("sharding-count: 2", "bucket-map: \"" + BucketMap.ofMod(6, 2, 1).format() + "\"");
    assertThat(bucketYaml).doesNotContain("GENE_MOD").contains("bucket-map: \"0=0-62/2; 1=1-63/2\"")
        .contains("bucket-map: \"0=0-1,4-5,8-9");
    try (ShardedDatabases databases = new ShardedDatabases(Backend.H2, 2, 2)) {
      DataSource mod = GeneShardingCheck.verify(databases.shardingSphere(modYaml));
      DataSource bucket = GeneShardingCheck.verify(databases.shardingSphere(bucketYaml));
      List<Long> ids = new ArrayList<>();
      for (long n = 1; n <= 3; n++) {
        for (long gene = 0; gene < 64; gene++) {
          ids.add((n * 1_000_003L << 6) | gene);
        }
      }
      List<String> written = new ArrayList<>();
      try (Connection c = mod.getConnection();
           PreparedStatement insert = c.prepareStatement("INSERT INTO t_order (id, customer) VALUES (?, ?)")) {
        for (long id : ids) {
          databases.statements.clear();
          insert.setLong(1, id);
          insert.setString(2, "c" + id);
          insert.executeUpdate();
          written.add(onlyNode(databases.statements));
        }
      }
      try (Connection c = bucket.getConnection();
           PreparedStatement select = c.prepareStatement("SELECT customer FROM t_order WHERE id = ?")) {
        for (int i = 0; i < ids.size(); i++) {
          databases.statements.clear();
          select.setLong(1, ids.get(i));
          try (ResultSet rs = select.executeQuery()) {
            assertThat(rs.next()).as("id %d found through GENE_BUCKET", ids.get(i)).isTrue();
            assertThat(rs.getString(1)).isEqualTo("c" + ids.get(i));
          }
          assertThat(onlyNode(databases.statements)).as("node of id %d", ids.get(i)).isEqualTo(written.get(i));
        }
      }
      assertThat(written).contains("ds_0.t_order_0", "ds_0.t_order_1", "ds_1.t_order_0", "ds_1.t_order_1");
    }
  }

  private static String onlyNode(List<String> statements) {
    List<String> nodes = new ArrayList<>();
    synchronized (statements) {
      for (String s : statements) {
        Matcher m = NODE.matcher(s);
        if (m.find()) {
          nodes.add(m.group(1) + "." + m.group(2));
        }
      }
    }
    assertThat(nodes).as("physical statements %s", statements).hasSize(1);
    return nodes.get(0);
  }
}
