package io.geneid.core;

import io.geneid.core.internal.Checks;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeMap;

/**
 * The routing rule of {@code GENE_MOD}: which of {@code sharding-count} targets a gene goes to.
 *
 * <pre>
 *   index  = (gene / geneDivisor) % shardingCount
 *   target = the target whose name ends with "_" + index   (ds_1, t_order_3, ...)
 * </pre>
 *
 * One rule for the ShardingSphere algorithm, the command line and the actuator endpoint, so they cannot disagree.
 *
 * @param shardingCount the number of targets at this level, in {@code [1, 2^geneBits]}
 * @param geneDivisor what the gene is divided by before the modulo, in {@code [1, 2^geneBits]}, with
 *     {@code shardingCount * geneDivisor <= 2^geneBits}; a second level uses the first level's count, so that the
 *     two levels use every (database, table) pair
 * @param geneBits G, the gene bits of the ids routed, in {@code [0, 16]}
 */
public record GeneRouting(int shardingCount, int geneDivisor, int geneBits) {

  /** The property names, as ShardingSphere's {@code GENE_MOD} and the command line spell them. */
  public static final String SHARDING_COUNT = "sharding-count";
  public static final String GENE_DIVISOR = "gene-divisor";
  public static final String GENE_BITS = "gene-bits";

  /**
   * Checks the settings.
   *
   * @throws IllegalArgumentException naming the setting, its value and the allowed range
   */
  public GeneRouting {
    Checks.range(GENE_BITS, geneBits, 0, GeneIdLayout.MAX_GENE_BITS);
    long genes = 1L << geneBits;
    Checks.range(SHARDING_COUNT, shardingCount, 1, genes);
    Checks.range(GENE_DIVISOR, geneDivisor, 1, genes);
    if ((long) shardingCount * geneDivisor > genes) {
      throw new IllegalArgumentException(SHARDING_COUNT + " * " + GENE_DIVISOR + " must be at most 2^" + GENE_BITS
          + " = " + genes + " but was " + shardingCount + " * " + geneDivisor + " = "
          + (long) shardingCount * geneDivisor + ": indexes above " + ((genes - 1) / geneDivisor)
          + " would never be used");
    }
  }

  /** The target index of a gene: {@code (gene / geneDivisor) % shardingCount}. */
  public int index(long gene) {
    return (int) ((gene / geneDivisor) % shardingCount);
  }

  /** The target index of a routing value (an id, a numeric or string parent key): see {@link Genes#ofKey}. */
  public int indexOfKey(Object key) {
    return index(Genes.ofKey(key, geneBits));
  }

  /** The genes that route to {@code index}, in ascending order. */
  public List<Long> genesOf(int index) {
    List<Long> genes = new ArrayList<>();
    for (long gene = 0, n = 1L << geneBits; gene < n; gene++) {
      if (index(gene) == index) {
        genes.add(gene);
      }
    }
    return genes;
  }

  /**
   * The target among {@code targets} whose name ends with {@code "_" + index}.
   *
   * @throws IllegalStateException if none or several do, naming the index and the targets
   */
  public String target(Collection<String> targets, int index) {
    String found = null;
    for (String target : targets) {
      if (suffix(target) == index) {
        if (found != null) {
          throw new IllegalStateException("index " + index + " matches both " + found + " and " + target
              + ": target names must end with distinct _<index> suffixes");
        }
        found = target;
      }
    }
    if (found == null) {
      throw new IllegalStateException("no target ends with _" + index + " among " + targets + " (" + this + ")");
    }
    return found;
  }

  /**
   * What is wrong with a set of targets at one level, as sentences: names that do not end in {@code _<number>},
   * two names with one suffix, and suffixes no gene routes to (at or above {@code shardingCount}). A level may hold
   * only some of the indexes (tables numbered apart per database), so a missing index is not reported here.
   */
  public List<String> problems(Collection<String> targets) {
    List<String> problems = new ArrayList<>();
    TreeMap<Integer, String> bySuffix = new TreeMap<>();
    for (String target : targets) {
      int n = suffix(target);
      if (n < 0) {
        problems.add("target " + target + " does not end with _<index>, so no gene routes to it");
      } else if (n >= shardingCount) {
        problems.add("target " + target + " ends with _" + n + " but " + SHARDING_COUNT + " is " + shardingCount
            + ": no gene routes to it");
      } else {
        String other = bySuffix.put(n, target);
        if (other != null) {
          problems.add("targets " + other + " and " + target + " both end with _" + n);
        }
      }
    }
    return problems;
  }

  /** The number after the last underscore of a target name, or -1. */
  public static int suffix(String target) {
    int underscore = target.lastIndexOf('_');
    int length = target.length() - underscore - 1;
    if (underscore < 0 || length == 0 || length > 9) {
      return -1;
    }
    int value = 0;
    for (int i = underscore + 1; i < target.length(); i++) {
      char c = target.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value;
  }

  @Override
  public String toString() {
    return SHARDING_COUNT + "=" + shardingCount + ", " + GENE_DIVISOR + "=" + geneDivisor + ", " + GENE_BITS + "="
        + geneBits;
  }
}
