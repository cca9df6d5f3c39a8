package io.geneid.mybatis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.baomidou.mybatisplus.annotation.IdType;
import com.baomidou.mybatisplus.annotation.TableId;
import io.geneid.core.GeneContext;
import io.geneid.core.GeneIdException;
import io.geneid.core.GeneIdGenerator;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import io.geneid.core.GeneSource;
import java.math.BigInteger;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The generator without a database: gene sources of every supported type, spreading, scopes and refusals. */
class GeneIdentifierGeneratorTest {

  private final GeneSnowflakeGenerator snowflake = GeneSnowflakeGenerator.builder().workerId(11).buildUnshared();
  private final GeneIdLayout layout = snowflake.layout();
  private final GeneIdentifierGenerator generator = new GeneIdentifierGenerator(snowflake);

  static class LongChild {
    @TableId(type = IdType.ASSIGN_ID) Long id;
    @GeneSource Long parentId;
  }

  static class PrimitiveChild {
    @TableId(type = IdType.ASSIGN_ID) long id;
    @GeneSource long parentId;
  }

  static class IntegerParentChild {
    @TableId(type = IdType.ASSIGN_ID) Long id;
    @GeneSource Integer parentId;
  }

  static class StringChild {
    @TableId(type = IdType.ASSIGN_ID) Long id;
    @GeneSource String customerCode;
  }

  static class UuidChild {
    @TableId(type = IdType.ASSIGN_ID) Long id;
    @GeneSource UUID deviceId;
  }

  static class BigIntegerChild {
    @TableId(type = IdType.ASSIGN_ID) BigInteger id;
    @GeneSource BigInteger parentId;
  }

  static class Root {
    @TableId(type = IdType.ASSIGN_ID) Long id;
    String name;
  }

  abstract static class Owned {
    @GeneSource Long ownerId;
  }

  static class InheritedSource extends Owned {
    @TableId(type = IdType.ASSIGN_ID) Long id;
  }

  static class NarrowId {
    @TableId(type = IdType.ASSIGN_ID) Integer id;
    @GeneSource Long parentId;
  }

  static class NarrowPrimitiveId {
    @TableId(type = IdType.ASSIGN_ID) int id;
  }

  static class DoubleId {
    @TableId(type = IdType.ASSIGN_ID) Double id;
  }

  static class FloatPrimitiveId {
    @TableId(type = IdType.ASSIGN_ID) float id;
  }

  static class ByteParentChild {
    @TableId(type = IdType.ASSIGN_ID) Long id;
    @GeneSource byte parentId;
  }

  static class TwoSources {
    @TableId(type = IdType.ASSIGN_ID) Long id;
    @GeneSource Long orderId;
    @GeneSource Long userId;
  }

  static class BadSourceType {
    @TableId(type = IdType.ASSIGN_ID) Long id;
    @GeneSource Instant createdAt;
  }

  private static <T> T with(T entity, java.util.function.Consumer<T> init) {
    init.accept(entity);
    return entity;
  }

  @Test
  void longSourceGivesTheParentsGene() {
    for (long parent : new long[] {0, 1, 63, 64, 65, 1_234_567_890_123L, Long.MAX_VALUE}) {
      long id = generator.nextId(with(new LongChild(), c -> c.parentId = parent));
      assertThat(layout.geneOf(id)).as("parent %d", parent).isEqualTo(parent & layout.maxGene());
      assertThat(layout.decode(id).workerId()).isEqualTo(11);
    }
  }

  @Test
  void primitiveAndIntegerAndBigIntegerSources() {
    long id = generator.nextId(with(new PrimitiveChild(), c -> c.parentId = 1000));
    assertThat(layout.geneOf(id)).isEqualTo(1000 & layout.maxGene());
    id = generator.nextId(with(new IntegerParentChild(), c -> c.parentId = 77));
    assertThat(layout.geneOf(id)).isEqualTo(77 & layout.maxGene());
    BigInteger big = BigInteger.valueOf(987_654_321L);
    id = generator.nextId(with(new BigIntegerChild(), c -> c.parentId = big));
    assertThat(layout.geneOf(id)).isEqualTo(987_654_321L & layout.maxGene());
  }

  @Test
  void stringAndUuidSourcesAreHashed() {
    long id = generator.nextId(with(new StringChild(), c -> c.customerCode = "customer-42@example.com"));
    assertThat(layout.geneOf(id)).isEqualTo(layout.geneOf("customer-42@example.com"));
    UUID device = UUID.fromString("123e4567-e89b-12d3-a456-426614174000");
    id = generator.nextId(with(new UuidChild(), c -> c.deviceId = device));
    assertThat(layout.geneOf(id)).isEqualTo(layout.geneOf("123e4567-e89b-12d3-a456-426614174000"));
  }

  @Test
  void sourceInASuperclassIsFound() {
    long id = generator.nextId(with(new InheritedSource(), c -> c.ownerId = 4242L));
    assertThat(layout.geneOf(id)).isEqualTo(4242L & layout.maxGene());
  }

  @Test
  void nullEntityNoSourceAndNullSourceSpreadOverEveryGene() {
    int genes = (int) layout.geneCount();
    Set<Long> fromNull = new HashSet<>();
    Set<Long> fromRoot = new HashSet<>();
    Set<Long> fromNullSource = new HashSet<>();
    for (int i = 0; i < genes; i++) {
      fromNull.add(layout.geneOf(generator.nextId(null)));
      fromRoot.add(layout.geneOf(generator.nextId(new Root())));
      fromNullSource.add(layout.geneOf(generator.nextId(new LongChild())));
    }
    // a null entity takes the generator's spread, each entity class its own: 64 ids of one spread hit every gene
    Set<Long> all = new HashSet<>(fromNull);
    all.addAll(fromRoot);
    all.addAll(fromNullSource);
    assertThat(all).hasSize(genes);
    assertThat(fromNull).hasSizeGreaterThan(genes / 4);
    assertThat(fromRoot).hasSizeGreaterThan(genes / 4);
    assertThat(fromNullSource).hasSizeGreaterThan(genes / 4);
  }

  @Test
  void rootEntitiesOfTwoClassesInTurnEachGetEveryGeneOncePerCycle() {
    // issue 20: one spread per entity class; a shared round-robin cursor gave each class every second gene
    int genes = (int) layout.geneCount();
    for (int cycle = 0; cycle < 3; cycle++) {
      Set<Long> roots = new HashSet<>();
      Set<Long> nullSources = new HashSet<>();
      for (int i = 0; i < genes; i++) {
        roots.add(layout.geneOf(generator.nextId(new Root())));
        nullSources.add(layout.geneOf(generator.nextId(new LongChild())));
      }
      assertThat(roots).as("cycle %d", cycle).hasSize(genes);
      assertThat(nullSources).as("cycle %d", cycle).hasSize(genes);
    }
  }

  @Test
  void entityWithoutSourceFollowsAnOpenScopeButItsOwnSourceWins() {
    try (var scope = GeneContext.inherit(5L)) {
      assertThat(layout.geneOf(generator.nextId(null))).isEqualTo(5);
      assertThat(layout.geneOf(generator.nextId(new Root()))).isEqualTo(5);
      assertThat(layout.geneOf(generator.nextId(new LongChild()))).isEqualTo(5);
      assertThat(layout.geneOf(generator.nextId(with(new LongChild(), c -> c.parentId = 9L)))).isEqualTo(9);
    }
    try (var scope = GeneContext.inheritEach(List.of(1L, 2L, 3L))) {
      assertThat(IntStream.range(0, 3).mapToLong(i -> layout.geneOf(generator.nextId(new Root()))))
          .containsExactly(1L, 2L, 3L);
    }
  }

  @Test
  void idsAreUniqueAcrossEntityKinds() {
    Set<Long> ids = new HashSet<>();
    for (int i = 0; i < 20_000; i++) {
      int p = i;
      assertThat(ids.add(generator.nextId(with(new LongChild(), c -> c.parentId = (long) (p % 7))))).isTrue();
      assertThat(ids.add(generator.nextId(new Root()))).isTrue();
      assertThat(ids.add(generator.nextId(null))).isTrue();
    }
  }

  @Test
  void narrowIdFieldIsRefusedNamingClassAndField() {
    assertThatThrownBy(() -> generator.nextId(with(new NarrowId(), c -> c.parentId = 1L)))
        .isInstanceOf(GeneIdException.class)
        .hasMessage(NarrowId.class.getName() + ".id is of type java.lang.Integer and cannot hold a 64-bit id"
            + " (MyBatis-Plus would truncate it, and truncated ids collide): declare the id Long, long, BigInteger"
            + " or String");
    assertThatThrownBy(() -> generator.nextId(new NarrowPrimitiveId()))
        .isInstanceOf(GeneIdException.class)
        .hasMessage(NarrowPrimitiveId.class.getName() + ".id is of type int and cannot hold a 64-bit id (MyBatis-Plus"
            + " would truncate it, and truncated ids collide): declare the id Long, long, BigInteger or String");
  }

  /** #12 item 9: MyBatis-Plus rounded such ids (1,000 distinct ids became 42 keys, the gene bits destroyed). */
  @Test
  void floatingPointIdFieldsAreRefusedNamingClassAndField() {
    assertThatThrownBy(() -> generator.nextId(new DoubleId()))
        .isInstanceOf(GeneIdException.class)
        .hasMessage(DoubleId.class.getName() + ".id is of type java.lang.Double and cannot hold a 64-bit id exactly"
            + " (MyBatis-Plus would round it: distinct ids become one key and the gene bits are lost): declare the id"
            + " Long, long, BigInteger or String");
    assertThatThrownBy(() -> generator.nextId(new FloatPrimitiveId()))
        .hasMessageStartingWith(FloatPrimitiveId.class.getName() + ".id is of type float and cannot hold a 64-bit id");
  }

  @Test
  void aByteSourceGivesItsGene() {
    long id = generator.nextId(with(new ByteParentChild(), c -> c.parentId = 45)).longValue();
    assertThat(id & 63).isEqualTo(45);
  }

  @Test
  void twoSourcesAreRefused() {
    assertThatThrownBy(() -> generator.nextId(new TwoSources()))
        .isInstanceOf(GeneIdException.class)
        .hasMessage(TwoSources.class.getName() + " has 2 fields annotated @GeneSource (" + TwoSources.class.getName()
            + ".orderId, " + TwoSources.class.getName() + ".userId): annotate exactly one, the parent key");
  }

  @Test
  void unsupportedSourceTypeIsRefused() {
    assertThatThrownBy(() -> generator.nextId(new BadSourceType()))
        .isInstanceOf(GeneIdException.class)
        .hasMessage(BadSourceType.class.getName() + ".createdAt is of type java.time.Instant: a @GeneSource field must be"
            + " a long, int, short, byte, Long, Integer, Short, Byte, BigInteger, String or UUID");
  }

  @Test
  void sharedUsesTheRegistryInstance() {
    GeneIdentifierGenerator shared = GeneIdentifierGenerator.shared(201);
    assertThat(shared.generator()).isSameAs(GeneSnowflakeGenerator.builder().workerId(201).build());
    assertThat(GeneIdentifierGenerator.shared(GeneSnowflakeGenerator.builder().workerId(201)).generator())
        .isSameAs(shared.generator());
  }

  @Test
  void worksOverAnyGeneIdGenerator() {
    // a generator that is not a GeneSnowflakeGenerator (as a lease-holding one will be): calls go through the
    // interface: nextIdForKey for a source, nextId(gene) with the gene of the entity class's spread for a root entity,
    // nextId() for a null entity
    List<String> calls = new java.util.ArrayList<>();
    GeneIdGenerator recording = new GeneIdGenerator() {
      @Override public long nextId() { calls.add("nextId()"); return snowflake.nextId(); }
      @Override public long nextId(long gene) { calls.add("nextId(" + gene + ")"); return snowflake.nextId(gene); }
      @Override public long nextIdFor(long key) { calls.add("nextIdFor(" + key + ")"); return snowflake.nextIdFor(key); }
      @Override public long nextIdFor(String key) { calls.add("nextIdFor(" + key + ")"); return snowflake.nextIdFor(key); }
      @Override public long nextIdForKey(Object key) { calls.add("nextIdForKey(" + key + ")"); return snowflake.nextIdForKey(key); }
      @Override public long[] nextIds(int n) { calls.add("nextIds(" + n + ")"); return snowflake.nextIds(n); }
      @Override public long[] nextIdsFor(long key, int n) { calls.add("nextIdsFor(" + key + ", " + n + ")"); return snowflake.nextIdsFor(key, n); }
      @Override public long getGene(long id) { return snowflake.getGene(id); }
      @Override public int geneBits() { return snowflake.geneBits(); }
    };
    GeneIdentifierGenerator over = new GeneIdentifierGenerator(recording);
    over.nextId(with(new LongChild(), c -> c.parentId = 12L));
    over.nextId(with(new StringChild(), c -> c.customerCode = "c-1"));
    over.nextId(new Root());
    over.nextId(null);
    assertThat(calls).hasSize(4).startsWith("nextIdForKey(12)", "nextIdForKey(c-1)").endsWith("nextId()");
    assertThat(calls.get(2)).matches("nextId\\(([0-9]|[1-5][0-9]|6[0-3])\\)");
    assertThat(over.generator()).isSameAs(recording);
  }
}
