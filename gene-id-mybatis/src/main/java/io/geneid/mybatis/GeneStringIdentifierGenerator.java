package io.geneid.mybatis;

import com.baomidou.mybatisplus.core.incrementer.IdentifierGenerator;
import io.geneid.core.GeneIdGenerator;
import io.geneid.core.GeneIdStringFormat;
import io.geneid.core.GeneSource;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A MyBatis-Plus {@link IdentifierGenerator} like {@link GeneIdentifierGenerator} that gives {@code String} id
 * properties gene string ids ({@link GeneIdStringFormat}: {@code ORD20261122} + 13 base-32 digits), which
 * {@code GENE_MOD} with the same {@code string-id-*} properties routes by their gene; numeric id properties get numbers
 * as before.
 *
 * <pre>{@code
 * @TableName("t_order")
 * public class Order {
 *   @TableId(type = IdType.ASSIGN_ID) private String id;   // "ORD20261122..."
 * }
 * @TableName("t_order_item")
 * public class OrderItem {
 *   @TableId(type = IdType.ASSIGN_ID) private Long id;     // carries the order's gene
 *   @GeneSource private String orderId;                    // a string id: read by its number
 * }
 *
 * GeneIdStringFormat orders = GeneIdStringFormat.builder().prefix("ORD").date(generator.layout()).build();
 * config.setIdentifierGenerator(new GeneStringIdentifierGenerator(generator, orders));
 * }</pre>
 *
 * <p>MyBatis-Plus 3.5.16 asks {@code nextId} for every {@code IdType.ASSIGN_ID} key whatever the property's type, and
 * converts the number to that type ({@code MybatisParameterHandler.populateKeys} with {@code OgnlOps.convertValue};
 * {@code nextUUID} only serves {@code ASSIGN_UUID}); the conversion to a String is {@code toString()}. So for an entity
 * whose id property is a String, {@link #nextId(Object)} returns a {@link Number} whose {@code toString()} is the
 * string id; for any other entity (and a {@code null} one) a {@link Long}.
 *
 * <p>A {@link GeneSource @GeneSource} String field holding a string id of this format gives the gene of the number it
 * encodes, so a child of a string-id parent lands with it; other strings are hashed (CRC-32C) as before.
 */
public final class GeneStringIdentifierGenerator implements IdentifierGenerator {

  private final GeneIdentifierGenerator ids;
  private final GeneIdStringFormat strings;

  /** Ids from {@code generator}; string ids of {@code strings} for String id properties. */
  public GeneStringIdentifierGenerator(GeneIdGenerator generator, GeneIdStringFormat strings) {
    this.ids = new GeneIdentifierGenerator(generator);
    this.strings = Objects.requireNonNull(strings, "strings");
  }

  /**
   * The id for {@code entity} ({@link GeneIdentifierGenerator#nextId(Object)}'s rules), as a {@link Long}, or for an
   * entity whose id property is a String as a number whose {@code toString()} is its string id.
   *
   * @throws io.geneid.core.GeneIdException as {@link GeneIdentifierGenerator#nextId(Object)}
   */
  @Override
  public Number nextId(@Nullable Object entity) {
    long id = ids.id(entity, strings);
    return entity != null && ids.plan(entity).stringId() ? new StringId(id, strings.format(id)) : id;
  }

  /** The string form of String id properties. */
  public GeneIdStringFormat strings() {
    return strings;
  }

  /** The generator ids come from. */
  public GeneIdGenerator generator() {
    return ids.generator();
  }

  @Override
  public String toString() {
    return "GeneStringIdentifierGenerator[" + ids.generator() + ", " + strings + "]";
  }

  /** An id whose text is its string form: what MyBatis-Plus writes into a String id property. */
  static final class StringId extends Number implements Comparable<StringId> {
    private static final long serialVersionUID = 1L;
    private final long id;
    private final String text;

    StringId(long id, String text) {
      this.id = id;
      this.text = text;
    }

    @Override
    public int intValue() {
      return (int) id;
    }

    @Override
    public long longValue() {
      return id;
    }

    @Override
    public float floatValue() {
      return id;
    }

    @Override
    public double doubleValue() {
      return id;
    }

    @Override
    public int compareTo(StringId o) {
      return Long.compare(id, o.id);
    }

    @Override
    public boolean equals(@Nullable Object o) {
      return o instanceof StringId other && other.id == id;
    }

    @Override
    public int hashCode() {
      return Long.hashCode(id);
    }

    @Override
    public String toString() {
      return text;
    }
  }
}
