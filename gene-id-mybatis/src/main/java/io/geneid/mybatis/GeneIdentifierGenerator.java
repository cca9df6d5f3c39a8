package io.geneid.mybatis;

import com.baomidou.mybatisplus.core.incrementer.IdentifierGenerator;
import io.geneid.core.GeneContext;
import io.geneid.core.GeneIdGenerator;
import io.geneid.core.GeneIdStringFormat;
import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import io.geneid.core.GeneSource;
import io.geneid.core.GeneSpread;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A MyBatis-Plus {@link IdentifierGenerator} whose ids carry the gene of the entity's parent key, so a child row
 * lands on its parent's shard.
 *
 * <pre>{@code
 * @TableName("t_order_item")
 * public class OrderItem {
 *   @TableId(type = IdType.ASSIGN_ID) private Long id;   // issued here, carries orderId's gene
 *   @GeneSource private Long orderId;                     // the parent key
 *   ...
 * }
 *
 * GlobalConfig config = GlobalConfigUtils.defaults()
 *     .setIdentifierGenerator(new GeneIdentifierGenerator(generator));
 * }</pre>
 *
 * <p>For an {@code IdType.ASSIGN_ID} entity MyBatis-Plus calls {@link #nextId(Object)} with the entity being
 * inserted, on {@code insert(T)}, {@code insert(Collection)}, {@code MybatisBatch} and {@code saveBatch} alike:
 * <ul>
 *   <li>an entity with a field annotated {@link GeneSource @GeneSource} holding a key gets an id from
 *       {@link GeneIdGenerator#nextIdForKey(Object)}: the key's gene (long, int, short and their boxes, BigInteger:
 *       the low bits; String and UUID: the CRC-32C hash of {@link io.geneid.core.GeneIdLayout#geneOf(String)});
 *   <li>an entity without a {@code @GeneSource} field and one whose source is {@code null} get the gene of the open
 *       {@link GeneContext} scope of this thread if there is one, else a gene from the {@link GeneSpread} of its
 *       class ({@link GeneSpread#nextId(GeneIdGenerator)}): one spread per entity class, so the root rows of each
 *       entity type balance over shards on their own (exactly, every {@code 2^G} rows a thread saves), also when one
 *       thread saves several types in turn;
 *   <li>a {@code null} entity ({@code IdWorker.getId()}) gets {@link GeneIdGenerator#nextId()}: the scope's gene, or
 *       one from the generator's own spread.
 * </ul>
 * The entity's own parent key wins over an open {@link GeneContext} scope.
 *
 * <p><b>String ids.</b> For {@code String} id properties that should hold gene string ids ({@code ORD20261122...})
 * use {@link GeneStringIdentifierGenerator}; this generator gives them the decimal digits MyBatis-Plus makes of the
 * number, which {@code GENE_MOD} hashes like any string.
 *
 * <p><b>Batches.</b> MyBatis-Plus asks for one id per entity, also in {@code saveBatch} and {@code insert(Collection)}
 * (its hook has no count), so each id is one call here; {@link GeneIdGenerator#nextIds(int)} serves callers that
 * know how many ids they need.
 *
 * <p>The lookup of the source field is done once per entity class. An entity whose id property is too narrow for a
 * 64-bit id ({@code Integer}, {@code int}, {@code Short}, {@code short}, {@code Byte}, {@code byte}) is refused with a
 * {@link io.geneid.core.GeneIdException} naming the class and the field: MyBatis-Plus would otherwise truncate the
 * id, and truncated ids collide.
 *
 * <p>Thread-safe. It holds no state of its own beyond the per-class lookups and spreads, so several instances over
 * the same {@link GeneIdGenerator} are fine (each balances the entity types it serves); two different generators with the same worker id are not (see
 * {@link GeneSnowflakeGenerator.Builder#build()}).
 */
public final class GeneIdentifierGenerator implements IdentifierGenerator {

  private final GeneIdGenerator generator;
  private final ClassValue<EntityGenePlan> plans = new ClassValue<>() {
    @Override
    protected EntityGenePlan computeValue(Class<?> type) {
      return EntityGenePlan.of(type, generator.geneBits());
    }
  };

  /**
   * Issues ids from {@code generator}: the JVM-shared {@link GeneSnowflakeGenerator}, a lease-holding or a segment
   * generator.
   */
  public GeneIdentifierGenerator(GeneIdGenerator generator) {
    this.generator = Objects.requireNonNull(generator, "generator");
  }

  /**
   * A generator over the JVM-shared {@link GeneSnowflakeGenerator} of the default layout for {@code workerId}: the
   * very instance ShardingSphere's key generator and application code get from
   * {@code GeneSnowflakeGenerator.builder().workerId(workerId).build()}, which claims the worker id for the JVM's
   * life (see {@link io.geneid.core.snowflake.GeneIdRegistry}).
   *
   * @throws IllegalArgumentException if workerId is not in {@code [0, 2^W - 1]}
   * @throws IllegalStateException naming both generators if another generator of this JVM (a leased one, one of
   *     another layout with the same epoch) holds the worker id
   */
  public static GeneIdentifierGenerator shared(long workerId) {
    return new GeneIdentifierGenerator(GeneSnowflakeGenerator.builder().workerId(workerId).build());
  }

  /**
   * A generator over the JVM-shared {@link GeneSnowflakeGenerator} that {@code builder} describes
   * ({@link GeneSnowflakeGenerator.Builder#build()}: shared per layout and worker id, the worker id claimed for the
   * JVM's life).
   *
   * @throws IllegalStateException naming both generators if another generator of this JVM holds the worker id
   */
  public static GeneIdentifierGenerator shared(GeneSnowflakeGenerator.Builder builder) {
    return new GeneIdentifierGenerator(builder.build());
  }

  /**
   * The id for {@code entity}: carrying the gene of its {@link GeneSource @GeneSource} field, or spread (or the
   * open {@link GeneContext} scope's gene) when it has none.
   *
   * @throws io.geneid.core.GeneIdException if the entity's id field cannot hold a 64-bit id, if it has more than one
   *     {@code @GeneSource} field or one of an unsupported type, or if the generator cannot issue an id
   */
  @Override
  public Long nextId(@Nullable Object entity) {
    return id(entity, null);
  }

  /**
   * The id for {@code entity}; with {@code strings}, a {@link GeneSource @GeneSource} String holding a string id of
   * that format gives the gene of the number it encodes.
   */
  long id(@Nullable Object entity, @Nullable GeneIdStringFormat strings) {
    if (entity == null) {
      return generator.nextId();
    }
    EntityGenePlan plan = plan(entity);
    Object parentKey = plan.parentKey(entity);
    if (strings != null && parentKey instanceof String text && strings.matches(text)) {
      parentKey = strings.parse(text); // a string id: the gene of its number
    }
    return parentKey == null ? plan.spread().nextId(generator) : generator.nextIdForKey(parentKey);
  }

  /** The plan of the entity's class, computed once per class. */
  EntityGenePlan plan(Object entity) {
    return plans.get(entity.getClass());
  }

  /** The generator ids come from. */
  public GeneIdGenerator generator() {
    return generator;
  }

  @Override
  public String toString() {
    return "GeneIdentifierGenerator[" + generator + "]";
  }
}
