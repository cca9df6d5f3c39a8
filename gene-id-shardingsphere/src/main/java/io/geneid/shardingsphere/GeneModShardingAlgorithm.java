package io.geneid.shardingsphere;

import io.geneid.core.settings.SettingsReader;
import io.geneid.core.GeneRouting;
import io.geneid.core.Genes;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.StringJoiner;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.apache.shardingsphere.sharding.api.sharding.complex.ComplexKeysShardingAlgorithm;
import org.apache.shardingsphere.sharding.api.sharding.complex.ComplexKeysShardingValue;
import org.apache.shardingsphere.sharding.api.sharding.hint.HintShardingAlgorithm;
import org.apache.shardingsphere.sharding.api.sharding.hint.HintShardingValue;
import org.apache.shardingsphere.sharding.api.sharding.standard.PreciseShardingValue;
import org.apache.shardingsphere.sharding.api.sharding.standard.RangeShardingValue;
import org.apache.shardingsphere.sharding.api.sharding.standard.StandardShardingAlgorithm;
import org.jspecify.annotations.Nullable;

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
 */
public final class GeneModShardingAlgorithm extends GeneShardingAlgorithm {

  /** The type name used in ShardingSphere configuration. */
  public static final String TYPE = "GENE_MOD";

  static final String SHARDING_COUNT = GeneRouting.SHARDING_COUNT;
  static final String GENE_BITS = SettingsReader.GENE_BITS;
  static final String GENE_DIVISOR = GeneRouting.GENE_DIVISOR;
  private static final List<String> PROPERTIES = java.util.stream.Stream.concat(
      java.util.stream.Stream.of(SHARDING_COUNT, GENE_BITS, GENE_DIVISOR), STRING_ID_PROPERTIES.stream()).toList();

  private @Nullable GeneRouting routing;

  /** Creates an algorithm without settings; ShardingSphere calls {@link #init(Properties)} next. */
  public GeneModShardingAlgorithm() {}

  /**
   * Checks and keeps the properties.
   *
   * @throws IllegalArgumentException naming the property and the allowed range
   */
  @Override
  public void init(Properties props) {
    SettingsReader p = AlgorithmProps.of(TYPE, props, PROPERTIES);
    int bits = p.geneBits();
    long geneCount = 1L << bits;
    int count = (int) p.requiredLong(SHARDING_COUNT, 1, geneCount);
    int divisor = (int) p.longValue(GENE_DIVISOR, 1, geneCount, 1);
    try {
      this.routing = new GeneRouting(count, divisor, bits);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(TYPE + " properties " + e.getMessage(), e);
    }
    readStringIds(p);
  }

  @Override
  int index(long gene) {
    return routing().index(gene);
  }

  @Override
  String rule() {
    return routing().toString();
  }

  @Override
  List<String> targetProblems(Collection<String> targets) {
    return routing().problems(targets);
  }

  @Override
  String targetOfIndex(Collection<String> targets, int index) {
    return routing().target(targets, index);
  }

  @Override
  String whyGenesSplit() {
    return "the modulo and would split when the shard count changes";
  }

  private GeneRouting routing() {
    GeneRouting r = routing;
    if (r == null) {
      throw new IllegalStateException(TYPE + " was used before init(Properties)");
    }
    return r;
  }

  @Override
  int geneBits() {
    GeneRouting r = routing;
    return r == null ? -1 : r.geneBits();
  }

  @Override
  public String getType() {
    return TYPE;
  }
}
