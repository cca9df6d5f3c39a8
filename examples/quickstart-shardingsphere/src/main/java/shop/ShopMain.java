package shop;

import io.geneid.core.GeneContext;
import io.geneid.shardingsphere.GeneShardingCheck;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import javax.sql.DataSource;
import org.apache.shardingsphere.driver.api.yaml.YamlShardingSphereDataSourceFactory;

/** Inserts an order, then its item inside a {@link GeneContext} scope, so the item's id carries the order's gene. */
@SuppressWarnings("try") // the scope works by being open; the block never names it
public class ShopMain {

  /** Arguments: none for the {@code sharding.yaml} on the class path, or the path of another one. */
  public static void main(String[] args) throws Exception {
    byte[] yaml;
    if (args.length > 0) {
      yaml = Files.readAllBytes(Path.of(args[0]));
    } else {
      try (InputStream in = ShopMain.class.getResourceAsStream("/sharding.yaml")) {
        yaml = in.readAllBytes();
      }
    }
    DataSource shop = YamlShardingSphereDataSourceFactory.createDataSource(yaml); // refuses gene-bits that differ
    try (Connection c = shop.getConnection()) {
      GeneShardingCheck.verify(shop);   // stops here on a node no gene reaches
      long orderId;
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO t_order (customer) VALUES (?)",
          Statement.RETURN_GENERATED_KEYS)) {
        ps.setString(1, "alice");
        ps.executeUpdate();
        try (ResultSet keys = ps.getGeneratedKeys()) {
          keys.next();
          orderId = keys.getLong(1);
        }
      }
      try (GeneContext.Scope scope = GeneContext.inherit(orderId);
          PreparedStatement ps = c.prepareStatement("INSERT INTO t_item (order_id, name) VALUES (?, ?)")) {
        ps.setLong(1, orderId);
        ps.setString(2, "book");
        ps.executeUpdate();         // GENE_SNOWFLAKE gives the item an id with orderId's gene
      }
      System.out.println("order " + orderId + " and its item are in table t_*_" + (orderId & 63) % 4);
    } finally {
      ((AutoCloseable) shop).close();
    }
  }
}
