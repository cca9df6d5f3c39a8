package io.geneid.spring.boot.actuate;

import io.geneid.core.GeneIdLayout;
import io.geneid.core.GeneIdParts;
import io.geneid.core.GeneRouting;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.WebEndpoint;

/**
 * The {@code geneid} actuator endpoint: decodes an id read from a log or a row, and names the shard a
 * {@code GENE_MOD} sharding algorithm routes it to.
 *
 * <pre>
 * GET /actuator/geneid/363362192454193215                                  # decode
 * GET /actuator/geneid/363362192454193215?shardingCount=4                  # and its target index among 4
 * GET /actuator/geneid/363362192454193215?shardingCount=2&amp;geneDivisor=2    # a second level, as GENE_MOD computes it
 * </pre>
 *
 * <p>The shard is {@code (gene / geneDivisor) % shardingCount} ({@link GeneRouting}, the rule of {@code GENE_MOD});
 * the count and the divisor come from the query parameters or else from
 * {@code management.endpoint.geneid.sharding-count} and {@code gene-divisor} (default 1). A bad id, count or divisor
 * answers 400 with a JSON body whose {@code message} names the value and the allowed range, whatever
 * {@code server.error.include-message} says. Expose it with {@code management.endpoints.web.exposure.include=health,geneid}.
 */
@WebEndpoint(id = "geneid")
public class GeneIdEndpoint {

  private final GeneIdLayout layout;
  private final @Nullable Integer shardingCount;
  private final int geneDivisor;

  /**
   * An endpoint for ids of {@code layout}.
   *
   * @param shardingCount the sharding count used when a request names none; {@code null} for none
   * @param geneDivisor the gene divisor used when a request names none
   * @throws IllegalArgumentException if {@code shardingCount} or {@code geneDivisor} is out of range
   */
  public GeneIdEndpoint(GeneIdLayout layout, @Nullable Integer shardingCount, int geneDivisor) {
    this.layout = Objects.requireNonNull(layout, "layout");
    if (shardingCount != null) {
      String problem = problem(shardingCount, geneDivisor);
      if (problem != null) {
        throw new IllegalArgumentException(GeneIdEndpointProperties.PREFIX + "." + problem);
      }
    }
    this.shardingCount = shardingCount;
    this.geneDivisor = geneDivisor;
  }

  /** An endpoint without a gene divisor. */
  public GeneIdEndpoint(GeneIdLayout layout, @Nullable Integer shardingCount) {
    this(layout, shardingCount, 1);
  }

  /**
   * Decodes {@code id}: 200 with a {@link DecodedId}, or 400 with an {@link Error} whose message names the bad value
   * and the allowed range (an id that is not a whole number in {@code [0, 2^63 - 1]}, a sharding count not in
   * {@code [1, 2^G]}, a gene divisor out of range).
   *
   * @param id the id, in decimal
   * @param shardingCount the number of targets to name the shard among; else the configured one, else none
   * @param geneDivisor what the gene is divided by before the modulo; else the configured one (default 1)
   */
  @ReadOperation
  public WebEndpointResponse<Object> decode(@Selector String id,
      @org.springframework.lang.Nullable Integer shardingCount,
      @org.springframework.lang.Nullable Integer geneDivisor) {
    // org.springframework.lang.Nullable is what Actuator reads to make a parameter optional
    long value;
    try {
      value = Long.parseLong(id.trim());
    } catch (NumberFormatException e) {
      return invalid("id must be a whole number in [0, " + Long.MAX_VALUE + "] but was '" + id + "'");
    }
    if (value < 0) {
      return invalid("id must be in [0, " + Long.MAX_VALUE + "] but was " + value);
    }
    Integer count = shardingCount != null ? shardingCount : this.shardingCount;
    int divisor = geneDivisor != null ? geneDivisor : this.geneDivisor;
    Long shard = null;
    GeneIdParts parts = layout.decode(value);
    if (count != null) {
      String problem = problem(count, divisor);
      if (problem != null) {
        return invalid(problem.replace("sharding-count", "shardingCount").replace("gene-divisor", "geneDivisor"));
      }
      shard = (long) new GeneRouting(count, divisor, layout.geneBits()).index(parts.gene());
    }
    return new WebEndpointResponse<>(new DecodedId(Long.toString(value), parts.timestamp().toString(),
        parts.workerId(), parts.sequence(), parts.gene(), describe(layout), count, count == null ? null : divisor,
        shard));
  }

  /** What is wrong with a sharding count and divisor for this layout, starting with the setting's name; or null. */
  private @Nullable String problem(int count, int divisor) {
    long genes = layout.geneCount();
    if (count < 1 || count > genes) {
      return "sharding-count must be in [1, " + genes + "] but was " + count + ": with gene-bits "
          + layout.geneBits() + " ids carry " + genes + " genes";
    }
    try {
      new GeneRouting(count, divisor, layout.geneBits());
      return null;
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
  }

  private static WebEndpointResponse<Object> invalid(String message) {
    return new WebEndpointResponse<>(new Error(WebEndpointResponse.STATUS_BAD_REQUEST, "Bad Request", message),
        WebEndpointResponse.STATUS_BAD_REQUEST);
  }

  /** The layout ids are decoded with. */
  public GeneIdLayout layout() {
    return layout;
  }

  static String describe(GeneIdLayout layout) {
    return "T" + layout.timestampBits() + "-W" + layout.workerBits() + "-S" + layout.sequenceBits() + "-G"
        + layout.geneBits() + " from " + layout.epoch();
  }

  /**
   * A decoded id.
   *
   * @param id the id, as a string: JavaScript reads numbers above 2^53 wrongly
   * @param timestamp the instant of its timestamp field, ISO-8601 UTC
   * @param worker its worker id
   * @param sequence its sequence in its millisecond and gene
   * @param gene its gene ({@code id & (2^G - 1)}), the same as its parent's
   * @param layout the layout it was decoded with, e.g. {@code T41-W8-S8-G6 from 2025-01-01T00:00:00Z}
   * @param shardingCount the number of targets the shard is named among; {@code null} if none was given
   * @param geneDivisor the gene divisor applied; {@code null} without a sharding count
   * @param shard the target index under {@code GENE_MOD}: {@code (gene / geneDivisor) % shardingCount};
   *     {@code null} without a sharding count
   */
  public record DecodedId(String id, String timestamp, long worker, long sequence, long gene, String layout,
      @Nullable Integer shardingCount, @Nullable Integer geneDivisor, @Nullable Long shard) {}

  /**
   * The body of a 400 answer.
   *
   * @param status 400
   * @param error {@code Bad Request}
   * @param message what was wrong: the value and the allowed range
   */
  public record Error(int status, String error, String message) {}
}
