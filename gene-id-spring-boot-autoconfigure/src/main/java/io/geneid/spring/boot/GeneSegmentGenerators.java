package io.geneid.spring.boot;

import io.geneid.core.segment.GeneSegmentGenerator;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The segment generators of {@code gene-id.segment.tags}, one per business tag, over the store of
 * {@code gene-id.segment.store}. Inject this bean and keep the generator of a tag:
 *
 * <pre>{@code
 * private final GeneSegmentGenerator orderIds;
 *
 * OrderService(GeneSegmentGenerators segments) {
 *   this.orderIds = segments.forTag("order");
 * }
 * }</pre>
 *
 * <p>The context closes it on shutdown: every generator stops its prefetch thread, then the store's connection (a
 * Redis client, or the pool made for {@code gene-id.jdbc.url}) is closed.
 */
public final class GeneSegmentGenerators implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(GeneSegmentGenerators.class);

  private final Map<String, GeneSegmentGenerator> generators;
  private final List<AutoCloseable> resources;

  GeneSegmentGenerators(Map<String, GeneSegmentGenerator> generators, List<AutoCloseable> resources) {
    this.generators = Collections.unmodifiableMap(new LinkedHashMap<>(generators));
    this.resources = List.copyOf(resources);
  }

  /**
   * The generator of {@code tag}.
   *
   * @throws IllegalArgumentException if {@code tag} is not one of {@code gene-id.segment.tags}
   */
  public GeneSegmentGenerator forTag(String tag) {
    GeneSegmentGenerator generator = generators.get(tag);
    if (generator == null) {
      throw new IllegalArgumentException("no segment generator for tag '" + tag + "': gene-id.segment.tags are "
          + generators.keySet());
    }
    return generator;
  }

  /** The tags, in the order of {@code gene-id.segment.tags}. */
  public Set<String> tags() {
    return generators.keySet();
  }

  /** Closes every generator, then the store's connection. Idempotent. */
  @Override
  public void close() {
    generators.values().forEach(GeneSegmentGenerator::close);
    for (AutoCloseable resource : resources) {
      try {
        resource.close();
      } catch (Exception e) {
        LOG.warn("gene-id: closing {} failed: {}", resource, e.toString(), e);
      }
    }
  }

  @Override
  public String toString() {
    return "GeneSegmentGenerators" + generators.values();
  }
}
