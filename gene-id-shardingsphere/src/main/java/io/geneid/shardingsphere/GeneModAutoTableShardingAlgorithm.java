package io.geneid.shardingsphere;

import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;
import org.apache.shardingsphere.sharding.api.sharding.ShardingAutoTableAlgorithm;

/**
 * ShardingSphere sharding algorithm type {@code GENE_MOD_AUTO}: {@code GENE_MOD}'s routing as an auto-table
 * algorithm, for {@code autoTables}, where ShardingSphere creates the tables itself and routes at one level.
 *
 * <pre>
 *   tables = t_order_0 .. t_order_{sharding-count - 1}, table i in actualDataSources[i % data sources]
 *   index  = gene(value) % sharding-count
 *   target = t_order_{index}                                    (its data source follows)
 * </pre>
 *
 * <p>It has {@code GENE_MOD}'s standard, complex and hint forms, with the same checks and messages. A complex
 * strategy on {@code id,order_id} lets a lookup of a child by its own id touch one table; with one level instead of
 * {@code tables}' database and table strategies, ShardingSphere evaluates one complex strategy per statement, not
 * two.
 *
 * <p>ShardingSphere asks the table level once per data source, each time with that data source's tables: a value
 * whose table is in another data source routes to nothing there. Give {@code sharding-count} a multiple of the
 * number of {@code actualDataSources}, so that each holds as many tables; {@link GeneShardingCheck} reports a count
 * that leaves a data source without a table or with more tables than another.
 *
 * <h2>Properties</h2>
 * <table>
 *   <caption>GENE_MOD_AUTO properties</caption>
 *   <tr><th>name</th><th>meaning</th><th>default</th></tr>
 *   <tr><td>sharding-count</td><td>number of tables ShardingSphere creates, in [1, 2^gene-bits]</td>
 *       <td>required</td></tr>
 *   <tr><td>gene-bits</td><td>G of the id layout, in [0, 16]: must equal the key generator's</td><td>6</td></tr>
 * </table>
 * There is no {@code gene-divisor}: auto tables have one level. String ids are read as by {@code GENE_MOD}.
 *
 * <p>ShardingSphere 5.5.2 refuses this type in {@code tables} ("tables sharding configuration can not use auto
 * sharding algorithm") and {@code GENE_MOD} in {@code autoTables} ("autoTables sharding configuration must use auto
 * sharding algorithm").
 */
public final class GeneModAutoTableShardingAlgorithm extends GeneRoutingAlgorithm
    implements ShardingAutoTableAlgorithm {

  /** The type name used in ShardingSphere configuration. */
  public static final String TYPE = "GENE_MOD_AUTO";

  private static final List<String> PROPERTIES = Stream.concat(Stream.of(SHARDING_COUNT, GENE_BITS),
      STRING_ID_PROPERTIES.stream()).toList();

  /** Creates an algorithm without settings; ShardingSphere calls {@link #init(Properties)} next. */
  public GeneModAutoTableShardingAlgorithm() {}

  /**
   * Checks and keeps the properties.
   *
   * @throws IllegalArgumentException naming the property and the allowed range
   */
  @Override
  public void init(Properties props) {
    init(TYPE, props, PROPERTIES);
  }

  /** The number of tables ShardingSphere creates for an auto table: {@code sharding-count}. */
  @Override
  public int getAutoTablesAmount() {
    return routing().shardingCount();
  }

  /** The settings in messages, e.g. {@code sharding-count=4, gene-bits=6} (there is no divisor). */
  @Override
  String rule() {
    return SHARDING_COUNT + "=" + routing().shardingCount() + ", " + GENE_BITS + "=" + routing().geneBits();
  }

  @Override
  boolean targetsSplitOverDataSources() {
    return true;
  }

  @Override
  public String getType() {
    return TYPE;
  }
}
