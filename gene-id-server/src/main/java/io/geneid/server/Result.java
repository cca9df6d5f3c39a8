package io.geneid.server;

import io.geneid.core.GeneIdLayout;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link Request} answers, whatever the protocol: HTTP renders it as JSON, gRPC as its reply message, and a
 * {@link Failure} as the error's HTTP status or gRPC status.
 */
sealed interface Result {

  /** The ids it issued, for the metrics and the access log. */
  default int issued() {
    return 0;
  }

  /** The kind of ids issued ({@code snowflake}, {@code segment}, {@code string}), for the metrics. */
  default String kind() {
    return "";
  }

  /** Snowflake ids, or segment ids of {@code key}; {@code parent} null for spread ids. */
  record Ids(@Nullable String key, long[] ids, @Nullable ParentKey parent) implements Result {
    @Override
    public int issued() {
      return ids.length;
    }

    @Override
    public String kind() {
      return key == null ? "snowflake" : "segment";
    }
  }

  record Strings(String[] ids, @Nullable ParentKey parent) implements Result {
    @Override
    public int issued() {
      return ids.length;
    }

    @Override
    public String kind() {
      return "string";
    }
  }

  /** One key's segment state. */
  record Segment(String key, long step, long remaining, boolean nextReady) {}

  record Segments(List<Segment> keys) implements Result {}

  /** The parts of a decoded id; {@code timestampMillis} is a decimal that may exceed a long. */
  record Decoded(long id, String timestampMillis, String timestamp, long workerId, long sequence, long gene)
      implements Result {}

  record Routed(long gene, int index) implements Result {}

  record Info(GeneIdLayout layout, long workerId, boolean issuing, int maxCount, String version, String instance)
      implements Result {}

  /** {@code /health/live}. */
  record Live() implements Result {}

  /** {@code /health/ready}: {@code notReady} null when ready, else why not. */
  record Ready(@Nullable String notReady, long workerId) implements Result {}

  /** {@code /metrics}: the Prometheus text. */
  record Scrape(String text) implements Result {}

  /** A refusal: its code gives the HTTP status and the gRPC status. */
  record Failure(ApiException error) implements Result {}
}
