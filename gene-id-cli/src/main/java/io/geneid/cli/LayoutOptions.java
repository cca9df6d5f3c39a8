package io.geneid.cli;

import io.geneid.core.GeneIdLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/**
 * The layout options every command takes: flags, a config file, or both (flags win). The keys are those of the
 * ShardingSphere key-generator props and of Spring Boot's {@code gene-id.*} properties.
 */
final class LayoutOptions {

  @Option(names = "--preset", paramLabel = "<name>", description = "Start from a named layout: default (T=41 W=8"
      + " S=8 G=6) or javascript-safe (T=51 W=4 S=4 G=4: ids below 2^53 for 69.7 years). The config file and the"
      + " flags override it.")
  @Nullable String preset;

  @Option(names = "--config", paramLabel = "<file>", description = "A .properties, .yml or .yaml file with the layout"
      + " keys (epoch, timestamp-bits, worker-bits, sequence-bits, gene-bits) at the top level, under gene-id"
      + " (Spring Boot) or under props (ShardingSphere). Flags override it.")
  @Nullable Path config;

  @Option(names = "--epoch", paramLabel = "<instant>", description = "Epoch: 2025-01-01T00:00:00Z, 2025-01-01 (UTC)"
      + " or milliseconds since 1970. Default 2025-01-01T00:00:00Z.")
  @Nullable String epoch;

  @Option(names = "--timestamp-bits", paramLabel = "<T>", description = "Timestamp bits (default 41).")
  @Nullable Integer timestampBits;

  @Option(names = "--worker-bits", paramLabel = "<W>", description = "Worker id bits (default 8).")
  @Nullable Integer workerBits;

  @Option(names = "--sequence-bits", paramLabel = "<S>", description = "Sequence bits (default 8).")
  @Nullable Integer sequenceBits;

  @Option(names = "--gene-bits", paramLabel = "<G>", description = "Gene bits (default 6).")
  @Nullable Integer geneBits;

  private GeneIdLayout preset() {
    if (preset == null || preset.equals("default")) {
      return GeneIdLayout.defaults();
    }
    if (preset.equals("javascript-safe")) {
      return GeneIdLayout.javascriptSafe();
    }
    throw new BadInputException("--preset must be default or javascript-safe but was '" + preset + "'");
  }

  /**
   * The layout: the preset ({@link GeneIdLayout#defaults()} unless named), then the config file, then the flags.
   *
   * @param notes where to say that a config file set no layout key
   */
  GeneIdLayout resolve(List<String> notes) {
    GeneIdLayout.Builder builder = preset().toBuilder();
    List<String> sources = new ArrayList<>();
    if (config != null) {
      Map<String, LayoutConfig.Setting> keys = LayoutConfig.read(config);
      if (keys.isEmpty()) {
        notes.add("note: " + config + " sets no layout key (" + String.join(", ", LayoutConfig.KEYS)
            + " at the top level, under gene-id or under props): using the default layout");
      } else {
        sources.add(config.toString());
      }
      keys.forEach((key, setting) -> LayoutConfig.apply(builder, key, setting.value(), config + ": " + setting.key()));
    }
    if (epoch != null) {
      builder.epoch(LayoutConfig.epoch(epoch, "--epoch"));
    }
    if (timestampBits != null) {
      builder.timestampBits(timestampBits);
    }
    if (workerBits != null) {
      builder.workerBits(workerBits);
    }
    if (sequenceBits != null) {
      builder.sequenceBits(sequenceBits);
    }
    if (geneBits != null) {
      builder.geneBits(geneBits);
    }
    if (epoch != null || timestampBits != null || workerBits != null || sequenceBits != null || geneBits != null) {
      sources.add("flags");
    }
    try {
      return builder.build();
    } catch (IllegalArgumentException e) {
      String from = sources.isEmpty() ? "" : " (from " + String.join(" and ", sources) + ")";
      throw new BadInputException("invalid layout" + from + ": " + e.getMessage());
    }
  }

  /** {@code T=41 W=8 S=8 G=6, epoch 2025-01-01T00:00:00Z}. */
  static String describe(GeneIdLayout layout) {
    return "T=" + layout.timestampBits() + " W=" + layout.workerBits() + " S=" + layout.sequenceBits() + " G="
        + layout.geneBits() + ", epoch " + layout.epoch();
  }
}
