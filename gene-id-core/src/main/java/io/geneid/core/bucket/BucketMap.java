package io.geneid.core.bucket;

import io.geneid.core.GeneIdLayout;
import io.geneid.core.GeneRouting;
import io.geneid.core.internal.Checks;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;

/**
 * Which target each of the 2^G gene buckets lives on, at one version, with each bucket's {@link BucketState}.
 *
 * <p>A bucket is a gene: a parent and every child issued inside its {@code io.geneid.core.GeneContext} share one, so a bucket's rows
 * always live together and a bucket is the unit that moves. {@code GENE_MOD} is one fixed map
 * ({@link #ofMod(int, int, int)}); a bucket map makes it explicit and versioned, so shards can be added by moving
 * whole buckets ({@link BucketPlanner}) while no id, foreign key or line of application code changes.
 *
 * <h2>Text form</h2>
 * One entry per target, {@code <target>=<buckets>}, entries separated by {@code ;}, buckets by {@code ,}; a bucket is
 * a number, a range {@code a-b}, or a range with a step {@code a-b/s} (every s-th bucket from a to b):
 * <pre>
 *   0=0-31; 1=32-63               two targets, halves of G = 6
 *   0=0-62/2; 1=1-63/2            GENE_MOD with sharding-count 2 (even and odd genes)
 *   0=0-60/4; 1=1-61/4; 2=2-62/4; 3=3-63/4    the same grown to 4 by splitting each shard in two
 * </pre>
 * Every bucket of {@code [0, 2^G - 1]} must appear exactly once. {@link #format()} writes the shortest such text;
 * {@link #parse(int, String)} reads it back. States are not part of the text: a map read from YAML has every bucket
 * {@link BucketState#NORMAL}; a map store keeps states beside the map.
 *
 * <p>Immutable: the {@code with...} methods return new maps. Target indexes are {@code [0, targetCount - 1]}; a
 * target may hold no bucket (a new, still empty shard, or one being drained). Targets are found among a level's
 * names by their {@code _<index>} suffix, as with {@code GENE_MOD}.
 *
 * @param geneBits G, in {@code [0, 16]}
 * @param version the map's version, at least 0; a map store raises it on every change
 * @param targets the target index of each bucket, {@code 2^G} entries (copied; the accessor returns a copy)
 * @param states the state of each bucket, {@code 2^G} entries (copied; the accessor returns a copy)
 */
public record BucketMap(int geneBits, long version, int[] targets, BucketState[] states) {

  /** The property name of the text form, as the ShardingSphere algorithm and the command line spell it. */
  public static final String BUCKET_MAP = "bucket-map";

  private static final String EXAMPLE = "e.g. 0=0-31; 1=32-63 or 0=0-62/2; 1=1-63/2";

  /**
   * Checks and copies.
   *
   * @throws IllegalArgumentException naming the bad value
   */
  public BucketMap {
    Checks.range(GeneRouting.GENE_BITS, geneBits, 0, GeneIdLayout.MAX_GENE_BITS);
    Checks.range("version", version, 0, Long.MAX_VALUE);
    int buckets = 1 << geneBits;
    if (targets.length != buckets || states.length != buckets) {
      throw new IllegalArgumentException("a bucket map of " + GeneRouting.GENE_BITS + "=" + geneBits + " needs "
          + buckets + " targets and states but had " + targets.length + " and " + states.length);
    }
    targets = targets.clone();
    states = states.clone();
    for (int b = 0; b < buckets; b++) {
      if (targets[b] < 0) {
        throw new IllegalArgumentException("the target of bucket " + b + " must be at least 0 but was " + targets[b]);
      }
      if (states[b] == null) {
        throw new IllegalArgumentException("the state of bucket " + b + " is null");
      }
    }
  }

  /** A map of version 0 with every bucket {@link BucketState#NORMAL}. */
  public static BucketMap of(int geneBits, int[] targets) {
    BucketState[] states = new BucketState[targets.length];
    Arrays.fill(states, BucketState.NORMAL);
    return new BucketMap(geneBits, 0, targets, states);
  }

  /**
   * The map that routes exactly as {@code GENE_MOD} with these settings ({@code (gene / divisor) % count}), so a
   * {@code GENE_MOD} configuration can be switched to {@code GENE_BUCKET} with no row moving.
   *
   * @throws IllegalArgumentException as {@link GeneRouting} does
   */
  public static BucketMap ofMod(int geneBits, int shardingCount, int geneDivisor) {
    GeneRouting routing = new GeneRouting(shardingCount, geneDivisor, geneBits);
    int[] targets = new int[1 << geneBits];
    for (int b = 0; b < targets.length; b++) {
      targets[b] = routing.index(b);
    }
    return of(geneBits, targets);
  }

  /**
   * Reads the text form (see the class comment): version 0, every bucket {@link BucketState#NORMAL}.
   *
   * @throws IllegalArgumentException {@code "bucket-map ..."} naming the part that cannot be read, a bucket out of
   *     range, a bucket given twice (and its two targets) or the buckets given none
   */
  public static BucketMap parse(int geneBits, String text) {
    Checks.range(GeneRouting.GENE_BITS, geneBits, 0, GeneIdLayout.MAX_GENE_BITS);
    int buckets = 1 << geneBits;
    int[] targets = new int[buckets];
    Arrays.fill(targets, -1);
    if (text.isBlank()) {
      throw new IllegalArgumentException(BUCKET_MAP + " is empty; give each target its buckets, " + EXAMPLE);
    }
    for (String entry : text.split(";")) {
      String e = entry.strip();
      if (e.isEmpty()) {
        continue;
      }
      int eq = e.indexOf('=');
      if (eq < 0) {
        throw new IllegalArgumentException(BUCKET_MAP + " cannot read '" + e + "': expected <target>=<buckets>, "
            + EXAMPLE);
      }
      int target = number(e.substring(0, eq).strip(), e, "target");
      for (String part : e.substring(eq + 1).split(",")) {
        String p = part.strip();
        int step = 1;
        int slash = p.indexOf('/');
        if (slash >= 0) {
          step = number(p.substring(slash + 1).strip(), e, "step");
          if (step < 1) {
            throw new IllegalArgumentException(BUCKET_MAP + " step must be at least 1 but was " + step + " in '" + e
                + "'");
          }
          p = p.substring(0, slash).strip();
        }
        int dash = p.indexOf('-');
        int from = number(dash < 0 ? p : p.substring(0, dash).strip(), e, "bucket");
        int to = dash < 0 ? from : number(p.substring(dash + 1).strip(), e, "bucket");
        if (from > to) {
          throw new IllegalArgumentException(BUCKET_MAP + " range " + from + "-" + to + " in '" + e
              + "' runs backwards");
        }
        if (to >= buckets) {
          throw new IllegalArgumentException(BUCKET_MAP + " bucket must be in [0, " + (buckets - 1) + "] (2^"
              + GeneRouting.GENE_BITS + " = " + buckets + " buckets) but was " + to + " in '" + e + "'");
        }
        for (int b = from; b <= to; b += step) {
          if (targets[b] >= 0) {
            throw new IllegalArgumentException(BUCKET_MAP + " gives bucket " + b + " twice: to target " + targets[b]
                + " and to target " + target);
          }
          targets[b] = target;
        }
      }
    }
    List<Integer> missing = new ArrayList<>();
    for (int b = 0; b < buckets; b++) {
      if (targets[b] < 0) {
        missing.add(b);
      }
    }
    if (!missing.isEmpty()) {
      throw new IllegalArgumentException(BUCKET_MAP + " gives no target to " + missing.size() + " of " + buckets
          + " buckets: " + ranges(missing) + "; every bucket of [0, " + (buckets - 1) + "] needs one");
    }
    return of(geneBits, targets);
  }

  private static int number(String s, String entry, String what) {
    if (s.isEmpty() || s.length() > 9 || !s.chars().allMatch(c -> c >= '0' && c <= '9')) {
      throw new IllegalArgumentException(BUCKET_MAP + " cannot read " + what + " '" + s + "' in '" + entry
          + "': expected a whole number, " + EXAMPLE);
    }
    return Integer.parseInt(s);
  }

  /** The number of buckets, 2^G. */
  public int bucketCount() {
    return 1 << geneBits;
  }

  /** One more than the highest target index a bucket goes to. */
  public int targetCount() {
    int max = -1;
    for (int t : targets) {
      max = Math.max(max, t);
    }
    return max + 1;
  }

  /** The target index of a bucket (a gene of this map's G). */
  public int target(int bucket) {
    return targets[bucket];
  }

  /** The state of a bucket. */
  public BucketState state(int bucket) {
    return states[bucket];
  }

  /** The bucket of a gene, checked: {@code gene} must be in {@code [0, 2^G - 1]}. */
  public int bucketOf(long gene) {
    Checks.range("gene", gene, 0, bucketCount() - 1L);
    return (int) gene;
  }

  @Override
  public int[] targets() {
    return targets.clone();
  }

  @Override
  public BucketState[] states() {
    return states.clone();
  }

  /** The buckets of a target, ascending. */
  public List<Integer> bucketsOf(int target) {
    List<Integer> result = new ArrayList<>();
    for (int b = 0; b < targets.length; b++) {
      if (targets[b] == target) {
        result.add(b);
      }
    }
    return result;
  }

  /** The buckets in a state, ascending. */
  public List<Integer> bucketsIn(BucketState state) {
    List<Integer> result = new ArrayList<>();
    for (int b = 0; b < states.length; b++) {
      if (states[b] == state) {
        result.add(b);
      }
    }
    return result;
  }

  /** This map at another version. */
  public BucketMap withVersion(long newVersion) {
    return new BucketMap(geneBits, newVersion, targets, states);
  }

  /** This map with {@code buckets} in {@code state}, at the same version. */
  public BucketMap withState(Iterable<Integer> buckets, BucketState state) {
    BucketState[] s = states.clone();
    for (int b : buckets) {
      Checks.range("bucket", b, 0, bucketCount() - 1L);
      s[b] = state;
    }
    return new BucketMap(geneBits, version, targets, s);
  }

  /** This map with {@code bucket} on {@code target}, at the same version and state. */
  public BucketMap withTarget(int bucket, int target) {
    Checks.range("bucket", bucket, 0, bucketCount() - 1L);
    Checks.range("target", target, 0, Integer.MAX_VALUE);
    int[] t = targets.clone();
    t[bucket] = target;
    return new BucketMap(geneBits, version, t, states);
  }

  /** The text form (see the class comment), shortest first: ranges, then stepped ranges. */
  public String format() {
    Map<Integer, List<Integer>> byTarget = new TreeMap<>();
    for (int b = 0; b < targets.length; b++) {
      byTarget.computeIfAbsent(targets[b], t -> new ArrayList<>()).add(b);
    }
    StringJoiner out = new StringJoiner("; ");
    byTarget.forEach((target, buckets) -> out.add(target + "=" + ranges(buckets)));
    return out.toString();
  }

  /**
   * Ascending bucket numbers in the text form's list syntax: runs with one step become {@code a-b} (step 1, two or
   * more) or {@code a-b/s} (three or more); the rest stay single. E.g. {@code [2, 6, 10, 14, 20]} is
   * {@code 2-14/4,20}.
   */
  public static String formatBuckets(List<Integer> sorted) {
    return ranges(sorted);
  }

  static String ranges(List<Integer> sorted) {
    StringJoiner out = new StringJoiner(",");
    int i = 0;
    while (i < sorted.size()) {
      int from = sorted.get(i);
      int j = i;
      if (i + 1 < sorted.size()) {
        int step = sorted.get(i + 1) - from;
        while (j + 1 < sorted.size() && sorted.get(j + 1) - sorted.get(j) == step) {
          j++;
        }
        if (j - i >= 2 || (j - i == 1 && step == 1)) {
          out.add(from + "-" + sorted.get(j) + (step == 1 ? "" : "/" + step));
          i = j + 1;
          continue;
        }
      }
      out.add(String.valueOf(from));
      i++;
    }
    return out.toString();
  }

  /**
   * The buckets not {@link BucketState#NORMAL}, e.g. {@code FROZEN=3,5; MOVED=8-11}; empty when every bucket is
   * normal. A map store keeps it beside {@link #format()}.
   */
  public String formatStates() {
    StringJoiner out = new StringJoiner("; ");
    for (BucketState state : BucketState.values()) {
      List<Integer> buckets = bucketsIn(state);
      if (state != BucketState.NORMAL && !buckets.isEmpty()) {
        out.add(state.name() + "=" + ranges(buckets));
      }
    }
    return out.toString();
  }

  /**
   * A map from its stored parts: {@link #format()}'s text, the version and {@link #formatStates()}'s text.
   *
   * @throws IllegalArgumentException naming what cannot be read
   */
  public static BucketMap parse(int geneBits, long version, String map, String states) {
    BucketMap m = parse(geneBits, map).withVersion(version);
    BucketState[] s = m.states;
    for (String entry : states.split(";")) {
      String e = entry.strip();
      if (e.isEmpty()) {
        continue;
      }
      int eq = e.indexOf('=');
      BucketState state;
      try {
        state = BucketState.valueOf(eq < 0 ? e : e.substring(0, eq).strip());
      } catch (IllegalArgumentException ex) {
        throw new IllegalArgumentException("bucket states cannot read '" + e + "': expected <state>=<buckets> with"
            + " a state of " + Arrays.toString(BucketState.values()), ex);
      }
      // the same bucket syntax as the map: read it as a map of one target
      BucketMap one = parseBuckets(geneBits, e.substring(eq + 1));
      for (int b = 0; b < s.length; b++) {
        if (one.targets[b] == 0) {
          s[b] = state;
        }
      }
    }
    return new BucketMap(geneBits, version, m.targets, s);
  }

  /** Marks the listed buckets with target 0 and the rest with 1, reusing the map's bucket syntax and checks. */
  private static BucketMap parseBuckets(int geneBits, String buckets) {
    int n = 1 << geneBits;
    int[] marks = new int[n];
    Arrays.fill(marks, 1);
    for (String part : buckets.split(",")) {
      String p = part.strip();
      int step = 1;
      int slash = p.indexOf('/');
      if (slash >= 0) {
        step = Math.max(1, number(p.substring(slash + 1).strip(), buckets, "step"));
        p = p.substring(0, slash).strip();
      }
      int dash = p.indexOf('-');
      int from = number(dash < 0 ? p : p.substring(0, dash).strip(), buckets, "bucket");
      int to = dash < 0 ? from : number(p.substring(dash + 1).strip(), buckets, "bucket");
      if (to >= n || from > to) {
        throw new IllegalArgumentException("bucket states: '" + part.strip() + "' is not a range of buckets in [0, "
            + (n - 1) + "]");
      }
      for (int b = from; b <= to; b += step) {
        marks[b] = 0;
      }
    }
    return of(geneBits, marks);
  }

  /** Same G, version, targets and states. */
  @Override
  public boolean equals(Object o) {
    return o instanceof BucketMap m && m.geneBits == geneBits && m.version == version
        && Arrays.equals(m.targets, targets) && Arrays.equals(m.states, states);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * Long.hashCode(version) + Arrays.hashCode(targets)) + Arrays.hashCode(states);
  }

  /** {@code BucketMap[gene-bits=6, version=3, 0=0-31; 1=32-63, frozen=5,7]}. */
  @Override
  public String toString() {
    List<Integer> frozen = bucketsIn(BucketState.FROZEN);
    List<Integer> switching = bucketsIn(BucketState.SWITCHING);
    List<Integer> moved = bucketsIn(BucketState.MOVED);
    return "BucketMap[" + GeneRouting.GENE_BITS + "=" + geneBits + ", version=" + version + ", " + format()
        + (frozen.isEmpty() ? "" : ", frozen=" + ranges(frozen))
        + (switching.isEmpty() ? "" : ", switching=" + ranges(switching))
        + (moved.isEmpty() ? "" : ", moved=" + ranges(moved)) + "]";
  }
}
