package io.geneid.spring.boot;

import io.geneid.core.GeneIdException;
import io.geneid.core.GeneIdLayout;
import io.geneid.core.segment.GeneSegmentGenerator;
import io.geneid.core.segment.SegmentSettings;
import io.geneid.core.settings.SettingsReader;
import java.util.HashMap;
import io.geneid.core.segment.SegmentStore;
import io.geneid.core.segment.SegmentStores;
import io.geneid.core.settings.StoreKeys;
import io.geneid.spring.boot.GeneIdProperties.Segment;
import io.geneid.spring.boot.GeneIdProperties.SegmentStoreType;
import io.geneid.spring.boot.GeneIdProperties.TagSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.jdbc.DataSourceBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.ResourceLoader;

/** The {@link GeneSegmentGenerators} of {@code gene-id.segment.*}, imported by {@link GeneIdAutoConfiguration}. */
@Configuration(proxyBeanMethods = false)
class GeneIdSegmentConfiguration {

  private static final Logger LOG = LoggerFactory.getLogger(GeneIdSegmentConfiguration.class);
  private static final String SEGMENT = GeneIdProperties.PREFIX + ".segment";
  private static final String SEGMENT_TABLE = GeneIdProperties.PREFIX + ".jdbc.segment-table";
  /** The Redis segment store provider's keys and the properties under {@code gene-id.} that set them. */
  private static final Map<String, String> REDIS_SEGMENT_NAMES = Map.of(StoreKeys.REDIS_URI, "redis.uri",
      StoreKeys.REDIS_TIMEOUT, "redis.timeout", StoreKeys.REDIS_KEY_PREFIX, "redis.segment-key-prefix",
      StoreKeys.REDIS_ALLOW_WITHOUT_PERSISTENCE, "redis.segment-allow-without-persistence");
  private static final Duration DEFAULT_REDIS_TIMEOUT = Duration.ofSeconds(2);

  /**
   * One generator per tag. Each fetches its first segment here, so an unreachable store fails start-up.
   *
   * @throws InvalidGeneIdPropertyException naming the property that is missing or out of range, or the artifact to add
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnProperty(prefix = SEGMENT, name = "store")
  @ConditionalOnMissingBean
  GeneSegmentGenerators geneSegmentGenerators(GeneIdProperties properties, ObjectProvider<DataSource> dataSources,
      ResourceLoader resources) {
    Segment segment = properties.segment();
    SegmentStoreType type = segment.store();
    if (type == null) {
      throw new InvalidGeneIdPropertyException(SEGMENT + ".store must be jdbc or redis");
    }
    List<String> tags = checkedTags(segment);
    GeneIdLayout layout = properties.layout();
    String what = SEGMENT + ".store=" + type.name().toLowerCase(java.util.Locale.ROOT);
    ClassLoader loader = resources.getClassLoader();
    List<AutoCloseable> owned = new ArrayList<>();
    Map<String, GeneSegmentGenerator> generators = new LinkedHashMap<>();
    try {
      SegmentStore store;
      if (type == SegmentStoreType.JDBC) {
        GeneIdLeaseConfiguration.requireModule(what, "gene-id-jdbc", "io.geneid.jdbc.JdbcSegmentStore", loader);
        GeneIdProperties.Jdbc jdbc = properties.jdbc();
        DataSource dataSource;
        if (jdbc.url() != null) {
          dataSource = DataSourceBuilder.create(loader).url(jdbc.url()).username(jdbc.username())
              .password(jdbc.password()).build();
          if (dataSource instanceof AutoCloseable closeable) {
            owned.add(closeable);
          }
        } else {
          dataSource = GeneIdLeaseConfiguration.applicationDataSource(dataSources, loader, what);
        }
        store = GeneIdProperties.named(() -> JdbcSupport.segmentStore(jdbc, dataSource),
            key -> key.equals("table") ? SEGMENT_TABLE : GeneIdProperties.propertyOf(key));
      } else {
        GeneIdLeaseConfiguration.requireModule(what, "gene-id-redis", "io.geneid.redis.RedisSegmentStore", loader);
        GeneIdProperties.Redis redis = properties.redis();
        String uri = redis.uri();
        if (uri == null || uri.isBlank()) {
          throw new InvalidGeneIdPropertyException(what + " needs " + GeneIdProperties.PREFIX
              + ".redis.uri, e.g. redis://127.0.0.1:6379/0");
        }
        Duration timeout = redis.timeout() != null ? redis.timeout() : DEFAULT_REDIS_TIMEOUT;
        Map<String, Object> settings = Map.of(StoreKeys.REDIS_URI, uri, StoreKeys.REDIS_KEY_PREFIX,
            redis.segmentKeyPrefix(), StoreKeys.REDIS_TIMEOUT, timeout, StoreKeys.REDIS_ALLOW_WITHOUT_PERSISTENCE,
            redis.segmentAllowWithoutPersistence());
        store = GeneIdProperties.named(() -> SegmentStores.provider("redis").create(SettingsReader.of(settings)),
            key -> GeneIdProperties.propertyOf(REDIS_SEGMENT_NAMES.getOrDefault(key, key)));
        owned.add((AutoCloseable) store); // RedisSegmentStore owns its client
      }
      for (String tag : tags) {
        generators.put(tag, generator(store, tag, layout, segment));
      }
    } catch (RuntimeException e) {
      new GeneSegmentGenerators(generators, owned).close();
      GeneIdStoreException report = e instanceof GeneIdException ? GeneIdStoreException.ofSegments(properties, e)
          : null;
      throw report != null ? report : e;
    }
    GeneSegmentGenerators result = new GeneSegmentGenerators(generators, owned);
    LOG.info("gene-id: segment generators {}", result);
    return result;
  }

  private static List<String> checkedTags(Segment segment) {
    List<String> tags = new ArrayList<>();
    for (String tag : segment.tags()) {
      String t = tag.trim();
      if (t.isEmpty() || tags.contains(t)) {
        throw new InvalidGeneIdPropertyException(SEGMENT + ".tags must hold distinct, non-empty tags but was "
            + segment.tags());
      }
      tags.add(t);
    }
    if (tags.isEmpty()) {
      throw new InvalidGeneIdPropertyException(SEGMENT + ".tags must name at least one business tag (e.g. order,"
          + " item) when " + SEGMENT + ".store is set");
    }
    for (String tag : segment.perTag().keySet()) {
      if (!tags.contains(tag)) {
        throw new InvalidGeneIdPropertyException(SEGMENT + ".per-tag." + tag + " names a tag that is not in "
            + SEGMENT + ".tags " + tags);
      }
    }
    return tags;
  }

  /**
   * The generator of {@code tag}: {@link SegmentSettings#read} of the bound values (a tag's own {@code min-step},
   * {@code max-step} and {@code segment-duration} over the common ones), so Spring and ShardingSphere share one set
   * of defaults and ranges, and each message names the property that set the value.
   */
  private static GeneSegmentGenerator generator(SegmentStore store, String tag, GeneIdLayout layout,
      Segment segment) {
    TagSettings own = segment.perTag().get(tag);
    Map<String, Object> values = new HashMap<>();
    Map<String, String> names = new HashMap<>();
    values.put(SegmentSettings.GENE_BITS, layout.geneBits());
    names.put(SegmentSettings.GENE_BITS, GeneIdProperties.PREFIX + ".gene-bits");
    put(values, names, SegmentSettings.MIN_STEP, segment.minStep(), own == null ? null : own.minStep(), tag);
    put(values, names, SegmentSettings.MAX_STEP, segment.maxStep(), own == null ? null : own.maxStep(), tag);
    put(values, names, SegmentSettings.SEGMENT_DURATION, segment.segmentDuration(),
        own == null ? null : own.segmentDuration(), tag);
    put(values, names, SegmentSettings.PREFETCH_RATIO, segment.prefetchRatio(), null, tag);
    put(values, names, SegmentSettings.FETCH_TIMEOUT, segment.fetchTimeout(), null, tag);
    put(values, names, SegmentSettings.PREFETCH_RETRY, segment.prefetchRetry(), null, tag);
    put(values, names, SegmentSettings.THREAD_BLOCK, segment.threadBlock(), null, tag);
    UnaryOperator<String> nameOf = key -> key.equals("bizTag") ? SEGMENT + ".tags" : names.getOrDefault(key, key);
    SegmentSettings settings = GeneIdProperties.named(() -> SegmentSettings.read(SettingsReader.of(values)), nameOf);
    return GeneIdProperties.named(() -> GeneSegmentGenerator.builder(store, tag).settings(settings).build(), nameOf);
  }

  /** The tag's own value of {@code key} if it has one, else the common one, and the property that set it. */
  private static void put(Map<String, Object> values, Map<String, String> names, String key, Object common,
      @Nullable Object own, String tag) {
    values.put(key, own != null ? own : common);
    names.put(key, SEGMENT + (own != null ? ".per-tag." + tag + "." : ".") + key);
  }
}
