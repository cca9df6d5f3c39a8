package io.geneid.core;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.zip.CRC32C;

/**
 * The gene functions for a given number of gene bits G, for routers that know G but no full layout (a sharding
 * algorithm, a segment generator). {@link GeneIdLayout#geneOf(long)} and its siblings are these functions with the
 * layout's G.
 *
 * <ul>
 *   <li>a whole number: its low G bits, {@code key & (2^G - 1)};
 *   <li>a string: {@code CRC32C(UTF-8 bytes) & (2^G - 1)} (CRC-32C as in iSCSI and {@code java.util.zip.CRC32C});
 *   <li>a UUID: the string rule over its canonical lower-case form.
 * </ul>
 */
public final class Genes {

  private Genes() {}

  /** The gene of a numeric key: its low {@code geneBits} bits. */
  public static long of(long key, int geneBits) {
    return key & mask(geneBits);
  }

  /** The gene of a string key: {@code CRC32C(UTF-8 bytes) & (2^geneBits - 1)}; a string is always hashed. */
  public static long of(String key, int geneBits) {
    CRC32C crc = new CRC32C();
    crc.update(key.getBytes(StandardCharsets.UTF_8));
    return crc.getValue() & mask(geneBits);
  }

  /**
   * The gene of a key of any supported type: {@link Long}, {@link Integer}, {@link Short}, {@link Byte} and integral
   * {@link BigInteger} or {@link BigDecimal} values by their low bits; {@link CharSequence} and {@link UUID} by the
   * string rule.
   *
   * @throws IllegalArgumentException for {@code null}, a fractional number or another type, naming it
   */
  public static long ofKey(Object key, int geneBits) {
    if (key instanceof Long || key instanceof Integer || key instanceof Short || key instanceof Byte) {
      return of(((Number) key).longValue(), geneBits);
    }
    if (key instanceof CharSequence || key instanceof UUID) {
      return of(key.toString(), geneBits);
    }
    if (key instanceof BigInteger) {
      return of(((BigInteger) key).longValue(), geneBits);
    }
    if (key instanceof BigDecimal) {
      try {
        return of(((BigDecimal) key).toBigIntegerExact().longValue(), geneBits);
      } catch (ArithmeticException e) {
        throw new IllegalArgumentException("parent key must be an integral number but was " + key, e);
      }
    }
    if (key == null) {
      throw new IllegalArgumentException("parent key must not be null");
    }
    throw new IllegalArgumentException("parent key must be a whole number, a String or a UUID but was "
        + key.getClass().getName() + " " + key);
  }

  /** {@code 2^geneBits - 1}. */
  static long mask(int geneBits) {
    if (geneBits < 0 || geneBits > GeneIdLayout.MAX_GENE_BITS) {
      throw new IllegalArgumentException("geneBits must be in [0, " + GeneIdLayout.MAX_GENE_BITS + "] but was "
          + geneBits);
    }
    return (1L << geneBits) - 1;
  }
}
