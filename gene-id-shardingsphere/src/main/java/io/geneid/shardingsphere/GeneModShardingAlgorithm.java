package io.geneid.shardingsphere;

import io.geneid.core.Genes;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * ShardingSphere sharding algorithm type {@code GENE_MOD}: routes a value by its gene, so a child id issued for a
 * parent lands where the parent does.
 *
 * <pre>
 *   index  = (gene(value) / gene-divisor) % sharding-count
 *   target = the available target whose name ends with "_" + index   (ds_1, t_order_3, ...)
 * </pre>
 *
 * <p>{@code gene(value)} is {@link Genes#ofKey(Object, int)} with {@code gene-bits} gene bits: whole numbers
 * (a gene id, a numeric parent key) by their low bits, strings and UUIDs by CRC-32C. Bind numeric keys as numbers:
 * the string {@code "42"} is hashed, it does not route like the number 42.
 *
 * <p>One class serves every strategy form:
 * <ul>
 *   <li><b>standard</b> ({@code standard: sharding-column: id}): one column; {@code =} and {@code IN} route by
 *       gene, ranges route to every target;
 *   <li><b>complex</b> ({@code complex: sharding-columns: id,order_id}): every column with a value must route to
 *       the same target (a child id and its parent id agree by construction); values that disagree are an error
 *       naming them. Columns compare case-insensitively; columns with only a range do not narrow the route;
 *   <li><b>hint</b>: the hint values (parent keys or ids) route by gene.
 * </ul>
 *
 * <h2>Properties</h2>
 * <table>
 *   <caption>GENE_MOD properties</caption>
 *   <tr><th>name</th><th>meaning</th><th>default</th></tr>
 *   <tr><td>sharding-count</td><td>number of targets at this level, in [1, 2^gene-bits]</td><td>required</td></tr>
 *   <tr><td>gene-bits</td><td>G of the id layout, in [0, 16]: must equal the key generator's</td><td>6</td></tr>
 *   <tr><td>gene-divisor</td><td>divides the gene before the modulo, in [1, 2^gene-bits], with
 *       {@code sharding-count * gene-divisor <= 2^gene-bits}</td><td>1</td></tr>
 * </table>
 *
 * <h2>Two levels</h2>
 * The same {@code sharding-count} at the database and the table level uses only the diagonal: with 2 databases of
 * 2 tables, {@code gene % 2} picks {@code ds_0.t_0} or {@code ds_1.t_1}, never {@code ds_0.t_1}. Give the table
 * level {@code gene-divisor} = the database count ({@code (gene / 2) % 2}) when table suffixes repeat in every
 * database, or number the tables apart ({@code ds_0.t_${[0,2]}, ds_1.t_${[1,3]}} with a table
 * {@code sharding-count} of 4). {@link GeneShardingCheck} reports nodes no gene reaches.
 *
 * <h2>Auto tables</h2>
 * ShardingSphere refuses {@code GENE_MOD} in {@code autoTables} (it is not a {@code ShardingAutoTableAlgorithm}),
 * and refuses every auto-table algorithm in {@code tables}; {@link GeneModAutoTableShardingAlgorithm}
 * ({@code GENE_MOD_AUTO}) is the same routing as one auto-table level.
 */
public final class GeneModShardingAlgorithm extends GeneRoutingAlgorithm {

  /** The type name used in ShardingSphere configuration. */
  public static final String TYPE = "GENE_MOD";

  private static final List<String> PROPERTIES = Stream.concat(
      Stream.of(SHARDING_COUNT, GENE_BITS, GENE_DIVISOR), STRING_ID_PROPERTIES.stream()).toList();

  /** Creates an algorithm without settings; ShardingSphere calls {@link #init(Properties)} next. */
  public GeneModShardingAlgorithm() {}

  /**
   * Checks and keeps the properties.
   *
   * @throws IllegalArgumentException naming the property and the allowed range
   */
  @Override
  public void init(Properties props) {
    init(TYPE, props, PROPERTIES);
  }

  @Override
  public String getType() {
    return TYPE;
  }
}
