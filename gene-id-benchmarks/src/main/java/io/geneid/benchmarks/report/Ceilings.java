package io.geneid.benchmarks.report;

import com.baomidou.mybatisplus.core.incrementer.DefaultIdentifierGenerator;
import com.github.yitter.contract.IdGeneratorOptions;
import io.geneid.benchmarks.GeneSnowflakeBenchmark;
import io.geneid.benchmarks.Layouts;
import io.geneid.benchmarks.PeerBenchmark;
import io.geneid.benchmarks.PublishedGeneBenchmark;
import io.geneid.benchmarks.PublishedGeneGenerator;
import io.geneid.benchmarks.SegmentBenchmark;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.segment.GeneSegmentGenerator;
import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import java.lang.reflect.Field;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import me.ahoo.cosid.snowflake.MillisecondSnowflakeId;
import org.apache.shardingsphere.infra.algorithm.keygen.snowflake.SnowflakeKeyGenerateAlgorithm;
import org.jspecify.annotations.Nullable;

/**
 * The ceiling of each generator benchmark, computed from the generator's own bit layout: gene-id's from
 * {@link GeneIdLayout}, the published design's from {@link PublishedGeneGenerator}'s constants, and each peer's
 * from the constants in its own classes (read by reflection where they are private), so a peer that changes its
 * bits changes its ceiling here. Segment ids ({@link SegmentBenchmark}) have no bit ceiling: their rows say so
 * ({@link Ceiling#storeBound}) and get no ratio.
 */
public final class Ceilings {

  private static final String GENE = GeneSnowflakeBenchmark.class.getName() + ".";
  private static final String PUBLISHED = PublishedGeneBenchmark.class.getName() + ".";
  private static final String PEER = PeerBenchmark.class.getName() + ".";
  private static final String SEGMENT = SegmentBenchmark.class.getName() + ".";

  private Ceilings() {}

  /** The ceiling of the JMH benchmark {@code benchmark} (fully qualified method) with {@code params}, if known. */
  public static Optional<Ceiling> of(String benchmark, Map<String, String> params) {
    if (benchmark.startsWith(GENE)) {
      return Optional.of(geneId(benchmark.substring(GENE.length()), params.getOrDefault("layout", Layouts.DEFAULT)));
    }
    if (benchmark.startsWith(PUBLISHED)) {
      return Optional.of(published(benchmark.substring(PUBLISHED.length())));
    }
    if (benchmark.startsWith(PEER)) {
      return Optional.of(peer(benchmark.substring(PEER.length())));
    }
    if (benchmark.startsWith(SEGMENT)) {
      return Optional.of(segment(benchmark.substring(SEGMENT.length()), params));
    }
    return Optional.empty();
  }

  private static Ceiling segment(String method, Map<String, String> params) {
    String step = params.containsKey("step")
        ? String.format(Locale.ROOT, "%,d", Long.parseLong(params.get("step"))) : "step";
    String perFetch = "no bit ceiling; store-bound: one store round trip per segment";
    int g = SegmentBenchmark.GENE_BITS;
    String ours = "V" + (63 - g) + " G" + g;
    String policy = params.getOrDefault("policy", "adaptive");
    String oursBasis = perFetch + (policy.startsWith("pinned") ? " (exactly " + step + ")"
        : " (step adapts from " + step + " up to "
            + String.format(Locale.ROOT, "%,d", Math.max(Long.parseLong(params.getOrDefault("step", "1")),
                io.geneid.core.segment.SegmentSettings.defaults().maxStep())) + ")");
    String ourName = "gene-id GeneSegmentGenerator" + switch (policy) {
      case "pinned" -> ", step pinned";
      case "thread-block" -> ", thread blocks of " + SegmentBenchmark.THREAD_BLOCK;
      case "pinned-thread-block" -> ", step pinned, thread blocks of " + SegmentBenchmark.THREAD_BLOCK;
      default -> "";
    };
    switch (method) {
      case "geneSegmentSpread":
        return Ceiling.storeBound(ourName, "nextId(), spread", ours, oursBasis);
      case "geneSegmentForParent":
        return Ceiling.storeBound(ourName, "nextIdFor(long parentKey)", ours, oursBasis);
      case "cosIdSegmentChain":
        return Ceiling.storeBound("CosId 2.x SegmentChainId", "generate()", "V63",
            perFetch + " (" + step + " x segments merged while hungry)");
      case "cosIdDefaultSegment":
        return Ceiling.storeBound("CosId 2.x DefaultSegmentId", "generate()", "V63",
            perFetch + " (exactly " + step + ")");
      case "sharedCounter":
        return Ceiling.storeBound("one shared AtomicLong (no generator)", "incrementAndGet()", "V63",
            "no store: the least any generator keeping one order across threads pays per id");
      default:
        throw new IllegalArgumentException("unknown segment benchmark method " + method);
    }
  }

  private static Ceiling geneId(String method, String layoutName) {
    GeneIdLayout layout = Layouts.named(layoutName);
    String bits = bits(layout.timestampBits(), layout.workerBits(), layout.sequenceBits(), layout.geneBits());
    String borrows = "at most " + GeneSnowflakeGenerator.Builder.DEFAULT_MAX_BORROW_MILLIS + " ms";
    String name = "gene-id (" + layoutName + ")";
    switch (method) {
      case "hotGene":
        return new Ceiling(name, "nextId(gene), one gene", bits, layout.idsPerMillisPerGene(),
            "2^S = " + layout.idsPerMillisPerGene() + " per gene", borrows);
      case "allGenes":
        return perWorker(name, "nextId(gene), every gene in turn", layout, bits, borrows);
      case "spread":
        return perWorker(name, "nextId(), spread", layout, bits, borrows);
      case "forParent":
        return perWorker(name, "nextIdFor(long parentKey)", layout, bits, borrows);
      default:
        throw new IllegalArgumentException("unknown gene-id benchmark method " + method);
    }
  }

  private static Ceiling perWorker(String name, String call, GeneIdLayout layout, String bits, String borrows) {
    String basis = layout.geneBits() == 0
        ? "2^S = " + layout.idsPerMillisPerWorker() + " (one gene)"
        : "2^(S+G) = " + layout.idsPerMillisPerWorker() + " per worker";
    return new Ceiling(name, call, bits, layout.idsPerMillisPerWorker(), basis, borrows);
  }

  private static Ceiling published(String method) {
    int s = PublishedGeneGenerator.SEQUENCE_BITS;
    int g = PublishedGeneGenerator.GENE_BITS;
    String bits = bits(41, PublishedGeneGenerator.DATACENTER_BITS + PublishedGeneGenerator.WORKER_BITS, s, g);
    String name = "published gene design (synchronized HashMap)";
    switch (method) {
      case "hotGene":
        return new Ceiling(name, "nextId(parentId), one gene", bits, 1L << s, "2^S = " + (1L << s) + " per gene",
            "unbounded");
      case "allGenes":
        return new Ceiling(name, "nextId(parentId), every gene in turn", bits, 1L << (s + g),
            "2^(S+G) = " + (1L << (s + g)) + " per worker", "unbounded");
      default:
        throw new IllegalArgumentException("unknown published-design benchmark method " + method);
    }
  }

  private static Ceiling peer(String method) {
    switch (method) {
      case "shardingSphereSnowflake": {
        long s = staticLong(SnowflakeKeyGenerateAlgorithm.class, "SEQUENCE_BITS");
        long w = staticLong(SnowflakeKeyGenerateAlgorithm.class, "WORKER_ID_BITS");
        return twelveBit("ShardingSphere 5.5.2 SNOWFLAKE", "generateKeys(ctx, 1)", 63 - w - s, w, s, "no");
      }
      case "myBatisPlusDefault": {
        Object sequence = field(new DefaultIdentifierGenerator(1, 1), "sequence");
        long s = (long) field(sequence, "sequenceBits");
        long w = (long) field(sequence, "workerIdBits") + (long) field(sequence, "datacenterIdBits");
        return twelveBit("MyBatis-Plus 3.5.16 DefaultIdentifierGenerator", "nextId(entity)", 63 - w - s, w, s, "no");
      }
      case "cosIdMillisecondSnowflake":
        return twelveBit("CosId 2.x MillisecondSnowflakeId", "generate()",
            MillisecondSnowflakeId.DEFAULT_TIMESTAMP_BIT, MillisecondSnowflakeId.DEFAULT_MACHINE_BIT,
            MillisecondSnowflakeId.DEFAULT_SEQUENCE_BIT, "no");
      case "hutoolSnowflake": {
        Class<?> c = cn.hutool.core.lang.Snowflake.class;
        long s = staticLong(c, "SEQUENCE_BITS");
        long w = staticLong(c, "WORKER_ID_BITS") + staticLong(c, "DATA_CENTER_ID_BITS");
        return twelveBit("Hutool 5.8 Snowflake", "nextId()", 63 - w - s, w, s, "no");
      }
      case "yitter": {
        IdGeneratorOptions o = new IdGeneratorOptions();
        int maxSeq = o.MaxSeqNumber <= 0 ? (1 << o.SeqBitLength) - 1 : o.MaxSeqNumber;
        int perMs = maxSeq - o.MinSeqNumber + 1;
        return new Ceiling("yitter IdGenerator (default options)", "newLong()",
            bits(63 - o.WorkerIdBitLength - o.SeqBitLength, o.WorkerIdBitLength, o.SeqBitLength, 0), perMs,
            "2^S - " + o.MinSeqNumber + " reserved = " + perMs, "up to " + o.TopOverCostCount + " ms (\"drift\")");
      }
      default:
        throw new IllegalArgumentException("unknown peer benchmark method " + method);
    }
  }

  private static Ceiling twelveBit(String name, String call, long t, long w, long s, String borrows) {
    return new Ceiling(name, call, bits(t, w, s, 0), 1L << s, "2^S = " + (1L << s), borrows);
  }

  private static String bits(long t, long w, long s, long g) {
    return "T" + t + " W" + w + " S" + s + (g > 0 ? " G" + g : "");
  }

  private static long staticLong(Class<?> type, String name) {
    return ((Number) field(type, null, name)).longValue();
  }

  private static Object field(Object target, String name) {
    return field(target.getClass(), target, name);
  }

  private static Object field(Class<?> type, @Nullable Object target, String name) {
    try {
      Field f = type.getDeclaredField(name);
      f.setAccessible(true);
      return f.get(target);
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw new IllegalStateException("cannot read " + type.getName() + "." + name
          + " to compute the ceiling: did the peer's version change?", e);
    }
  }
}
