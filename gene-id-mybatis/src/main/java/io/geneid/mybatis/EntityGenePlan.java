package io.geneid.mybatis;

import com.baomidou.mybatisplus.annotation.TableId;
import com.baomidou.mybatisplus.core.metadata.TableInfo;
import com.baomidou.mybatisplus.core.metadata.TableInfoHelper;
import io.geneid.core.GeneIdException;
import io.geneid.core.GeneSource;
import io.geneid.core.GeneSpread;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How to find the parent key of one entity class, and the {@link GeneSpread} of its root rows: computed once per class
 * by each {@link GeneIdentifierGenerator}.
 */
final class EntityGenePlan {

  private static final Logger LOG = LoggerFactory.getLogger(GeneIdentifierGenerator.class);

  /** Id types MyBatis-Plus would narrow a 64-bit id into (OgnlOps.convertValue truncates). */
  private static final Set<Class<?>> NARROW_ID_TYPES =
      Set.of(Integer.class, int.class, Short.class, short.class, Byte.class, byte.class);

  /** Id types MyBatis-Plus would round a 64-bit id into (a double keeps 53 bits: the gene bits go first). */
  private static final Set<Class<?>> FLOATING_ID_TYPES = Set.of(Double.class, double.class, Float.class, float.class);

  private static final Set<Class<?>> SOURCE_TYPES = Set.of(Long.class, long.class, Integer.class, int.class,
      Short.class, short.class, Byte.class, byte.class, BigInteger.class, String.class, UUID.class);

  private static final MethodType GETTER_TYPE = MethodType.methodType(Object.class, Object.class);

  /** {@code (Object entity) -> Object key}; null when the class has no {@code @GeneSource} field. */
  private final @Nullable MethodHandle getter;
  /** The genes of this class's rows without a parent key: one spread per entity class, so each balances alone. */
  private final GeneSpread spread;

  /** Whether the class's id property is a String. */
  private final boolean stringId;

  private EntityGenePlan(@Nullable MethodHandle getter, int geneBits, boolean stringId) {
    this.getter = getter;
    this.spread = new GeneSpread(geneBits);
    this.stringId = stringId;
  }

  /** The plan of {@code type}, whose ids carry {@code geneBits} gene bits. */
  static EntityGenePlan of(Class<?> type, int geneBits) {
    boolean stringId = checkIdField(type) == String.class;
    Field source = findSource(type);
    if (source == null) {
      LOG.debug("{} has no @GeneSource field: its ids are spread over the genes", type.getName());
      return new EntityGenePlan(null, geneBits, stringId);
    }
    try {
      source.setAccessible(true);
      MethodHandle getter = MethodHandles.lookup().unreflectGetter(source).asType(GETTER_TYPE);
      LOG.debug("{} takes the gene of its ids from {}", type.getName(), source.getName());
      return new EntityGenePlan(getter, geneBits, stringId);
    } catch (RuntimeException | IllegalAccessException e) {
      throw new GeneIdException("cannot read " + name(source) + ", the @GeneSource field of " + type.getName()
          + ": open its package to gene-id-mybatis (" + e.getMessage() + ")", e);
    }
  }

  /** The entity's parent key, or null when it has no source field or the field is null. */
  @Nullable Object parentKey(Object entity) {
    MethodHandle g = getter;
    if (g == null) {
      return null;
    }
    try {
      return (Object) g.invokeExact(entity);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable e) {
      throw new GeneIdException("cannot read the @GeneSource field of " + entity.getClass().getName(), e);
    }
  }

  /** The spread of this class's root rows (no source field, or a null source). */
  GeneSpread spread() {
    return spread;
  }

  /** Whether the class's id property is a String. */
  boolean stringId() {
    return stringId;
  }

  /** Refuses an entity whose id property cannot hold a 64-bit id; returns the id's type, null if unknown. */
  private static @Nullable Class<?> checkIdField(Class<?> type) {
    String property = null;
    Class<?> keyType = null;
    TableInfo table = TableInfoHelper.getTableInfo(type);
    if (table != null && table.getKeyProperty() != null && !table.getKeyProperty().isEmpty()) {
      property = table.getKeyProperty();
      keyType = table.getKeyType();
    } else {
      // not (yet) registered with MyBatis-Plus: look for the @TableId field ourselves
      for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
        for (Field f : c.getDeclaredFields()) {
          if (f.isAnnotationPresent(TableId.class)) {
            property = f.getName();
            keyType = f.getType();
          }
        }
        if (property != null) {
          break;
        }
      }
    }
    if (keyType != null && NARROW_ID_TYPES.contains(keyType)) {
      throw new GeneIdException(type.getName() + "." + property + " is of type "
          + keyType.getTypeName() + " and cannot hold a 64-bit id (MyBatis-Plus would truncate it, and truncated"
          + " ids collide): declare the id Long, long, BigInteger or String");
    }
    if (keyType != null && FLOATING_ID_TYPES.contains(keyType)) {
      throw new GeneIdException(type.getName() + "." + property + " is of type "
          + keyType.getTypeName() + " and cannot hold a 64-bit id exactly (MyBatis-Plus would round it: distinct ids"
          + " become one key and the gene bits are lost): declare the id Long, long, BigInteger or String");
    }
    return keyType;
  }

  private static @Nullable Field findSource(Class<?> type) {
    List<Field> found = new ArrayList<>();
    for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
      for (Field f : c.getDeclaredFields()) {
        if (f.isAnnotationPresent(GeneSource.class)) {
          found.add(f);
        }
      }
    }
    if (found.isEmpty()) {
      return null;
    }
    if (found.size() > 1) {
      throw new GeneIdException(type.getName() + " has " + found.size() + " fields annotated @GeneSource ("
          + found.stream().map(EntityGenePlan::name).collect(Collectors.joining(", "))
          + "): annotate exactly one, the parent key");
    }
    Field f = found.get(0);
    if (Modifier.isStatic(f.getModifiers())) {
      throw new GeneIdException(name(f) + " is static: @GeneSource must mark an instance field");
    }
    if (!SOURCE_TYPES.contains(f.getType())) {
      throw new GeneIdException(name(f) + " is of type " + f.getType().getTypeName()
          + ": a @GeneSource field must be a long, int, short, byte, Long, Integer, Short, Byte, BigInteger, String or"
          + " UUID");
    }
    return f;
  }

  private static String name(Field f) {
    return f.getDeclaringClass().getName() + "." + f.getName();
  }
}
