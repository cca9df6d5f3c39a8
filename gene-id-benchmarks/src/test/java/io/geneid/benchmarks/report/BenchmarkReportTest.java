package io.geneid.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.geneid.benchmarks.e2e.E2eReport;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchmarkReportTest {

  @TempDir
  Path dir;

  private static String result(String benchmark, String mode, int threads, String params, String score,
      String error, String unit, String secondary) {
    return "{\"jmhVersion\":\"1.37\",\"benchmark\":\"" + benchmark + "\",\"mode\":\"" + mode + "\",\"threads\":"
        + threads + ",\"forks\":1,\"jvm\":\"/usr/bin/java\",\"jdkVersion\":\"17.0.15\",\"vmName\":\"OpenJDK 64-Bit "
        + "Server VM\",\"vmVersion\":\"17.0.15+6\",\"warmupIterations\":3,\"warmupTime\":\"1 s\","
        + "\"measurementIterations\":5,\"measurementTime\":\"1 s\",\"params\":{" + params + "},"
        + "\"primaryMetric\":{\"score\":" + score + ",\"scoreError\":" + error + ",\"scoreUnit\":\"" + unit + "\"},"
        + "\"secondaryMetrics\":{" + secondary + "}}";
  }

  /** The cost rows carry the CPU time per id beside the average time, and the guarded row says whether #44 holds. */
  @Test
  void costRowsShowTheCpuTimePerIdAndTheGoalOfIssue44() throws Exception {
    String cpu1 = "\"cpu.worker\":{\"score\":9.5,\"scoreError\":\"NaN\",\"scoreUnit\":\"ns/op\"}";
    String cpu2 = "\"cpu.worker\":{\"score\":12.0,\"scoreError\":\"NaN\",\"scoreUnit\":\"ns/op\"}";
    Files.writeString(dir.resolve("cost-1-thread.json"), "["
        + result("io.geneid.benchmarks.IdCostBenchmark.plainNextIdSpread", "avgt", 1, "", "25.0", "1.0", "ns/op", cpu1)
        + "]");
    Files.writeString(dir.resolve("cost-2-threads.json"), "["
        + result("io.geneid.benchmarks.IdCostBenchmark.plainNextIdSpread", "avgt", 2, "", "30.0", "1.0", "ns/op", cpu2)
        + "]");
    Files.writeString(dir.resolve("environment.properties"), "date=2026-12-02T00:00:00Z\nnproc=2\n");
    Path out = dir.resolve("BENCHMARKS.md");

    BenchmarkReport.main(new String[] {dir.toString(), out.toString()});

    assertThat(Files.readString(out))
        .contains("| call | 1 thread (ns per id) | CPU, 1 thread | 2 threads (ns per id) | CPU, 2 threads |")
        .contains("| `plainNextIdSpread` | 25.00 ± 1.00 | 9.50 | 30.00 ± 1.00 | 12.00 |")
        .contains("Goal of #44 for `plainNextIdSpread` (CPU time per id): at most 10.00 ns at 1 thread: 9.50 ns, met;"
            + " 2 threads at most 1.2 times 1 thread: 1.26, **not met**.");
  }

  @Test
  void writesEachGeneratorBesideItsCeilingAndTheEndToEndStatements() throws Exception {
    Files.writeString(dir.resolve("generators-t1.json"), "[" + String.join(",",
        result("io.geneid.benchmarks.GeneSnowflakeBenchmark.hotGene", "thrpt", 1, "\"layout\":\"default\"",
            "255.5", "0.3", "ops/ms", ""),
        result("io.geneid.benchmarks.PeerBenchmark.hutoolSnowflake", "thrpt", 1, "", "2048", "10", "ops/ms", ""))
        + "]");
    Files.writeString(dir.resolve("generators-t2.json"), "["
        + result("io.geneid.benchmarks.PublishedGeneBenchmark.hotGene", "thrpt", 2, "", "13200", "\"NaN\"",
            "ops/ms", "")
        + "]");
    Files.writeString(dir.resolve("e2e.json"), "["
        + result("io.geneid.benchmarks.e2e.ShardingSphereRoutingBenchmark.queryByParent", "avgt", 1,
            "\"rules\":\"snowflake\"", "123.456", "4.5", "us/op",
            "\"physicalStatements\":{\"score\":400,\"scoreError\":\"NaN\",\"scoreUnit\":\"#\"},"
                + "\"queries\":{\"score\":100,\"scoreError\":\"NaN\",\"scoreUnit\":\"#\"}")
        + "]");
    Files.writeString(dir.resolve("environment.properties"),
        "date=2026-11-22T00:00:00Z\nnproc=2\ncpu=Some CPU | 2.0GHz\nloadavg=0.10 0.20 0.30\nos=Linux\ncommit=abc\n");
    Path out = dir.resolve("BENCHMARKS.md");

    BenchmarkReport.main(new String[] {dir.toString(), out.toString()});

    String md = Files.readString(out);
    assertThat(md).doesNotContain("SMOKE RUN")
        .contains("| CPUs (`nproc`) | 2 |")
        .contains("| CPU model | Some CPU \\| 2.0GHz |")
        .contains("| JVM | OpenJDK 64-Bit Server VM 17.0.15+6 (JDK 17.0.15) |")
        .contains("| JMH settings | 1 fork(s), 3 x 1 s warm-up, 5 x 1 s measured |")
        .contains("| generator | call | layout | ceiling (ids/ms) | basis | borrows ahead |"
            + " 1 thread (ops/ms) | ratio | 2 threads (ops/ms) | ratio |")
        .contains("| gene-id (default) | `nextId(gene), one gene` | T41 W8 S8 G6 | 256 | 2^S = 256 per gene |"
            + " at most 10 ms | 256 ± 0.30 | 1.00 (bits) | – | – |")
        .contains("| published gene design (synchronized HashMap) | `nextId(parentId), one gene` | T41 W10 S7 G5 |"
            + " 128 | 2^S = 128 per gene | unbounded | – | – | 13,200 | 103.13 (ahead of clock) |")
        .contains("| Hutool 5.8 Snowflake | `nextId()` | T41 W10 S12 | 4,096 | 2^S = 4096 | no | 2,048 ± 10.00 |"
            + " 0.50 (CPU) | – | – |")
        .contains("| queryByParent | snowflake | 1 | 123 ± 4.50 us/op | 4.00 |");
    assertThat(md.indexOf("gene-id (default)")).isLessThan(md.indexOf("published gene design"));
    assertThat(md.indexOf("published gene design")).isLessThan(md.indexOf("Hutool"));
  }

  @Test
  void rowsAreInReadingOrder() throws Exception {
    String[] methods = {"forParent", "spread", "allGenes", "hotGene"};
    StringBuilder json = new StringBuilder("[");
    for (String layout : new String[] {"classic", "default"}) {
      for (String m : methods) {
        json.append(result("io.geneid.benchmarks.GeneSnowflakeBenchmark." + m, "thrpt", 1,
            "\"layout\":\"" + layout + "\"", "100", "1", "ops/ms", "")).append(',');
      }
    }
    json.append(result("io.geneid.benchmarks.PeerBenchmark.yitter", "thrpt", 1, "", "59", "1", "ops/ms", ""))
        .append(',').append(result("io.geneid.benchmarks.PeerBenchmark.shardingSphereSnowflake", "thrpt", 1, "",
            "4000", "1", "ops/ms", "")).append(']');
    Files.writeString(dir.resolve("r.json"), json);
    String md = BenchmarkReport.render(BenchmarkReport.readResults(dir), new java.util.Properties(), dir, false);
    String[] expected = {"gene-id (default) | `nextId(gene), one gene`", "gene-id (default) | `nextId(gene), every",
        "gene-id (default) | `nextId(), spread`", "gene-id (default) | `nextIdFor",
        "gene-id (classic) | `nextId(gene), one",
        "gene-id (classic) | `nextIdFor", "ShardingSphere 5.5.2", "yitter"};
    int at = -1;
    for (String e : expected) {
      int next = md.indexOf(e);
      assertThat(next).as(e).isGreaterThan(at);
      at = next;
    }
  }

  @Test
  void segmentRowsGetTheirOwnTableWithTheStepAndNoRatio() throws Exception {
    Files.writeString(dir.resolve("generators-1-thread.json"), "[" + String.join(",",
        result("io.geneid.benchmarks.SegmentBenchmark.cosIdSegmentChain", "thrpt", 1, "\"step\":\"100000\"",
            "90000", "100", "ops/ms", ""),
        result("io.geneid.benchmarks.SegmentBenchmark.geneSegmentSpread", "thrpt", 1, "\"step\":\"100000\"",
            "80000", "200", "ops/ms", ""),
        result("io.geneid.benchmarks.SegmentBenchmark.geneSegmentSpread", "thrpt", 1, "\"step\":\"1000\"",
            "30000", "\"NaN\"", "ops/ms", ""),
        result("io.geneid.benchmarks.PeerBenchmark.hutoolSnowflake", "thrpt", 1, "", "2048", "10", "ops/ms", ""))
        + "]");
    Files.writeString(dir.resolve("generators-2-threads.json"), "["
        + result("io.geneid.benchmarks.SegmentBenchmark.geneSegmentSpread", "thrpt", 2, "\"step\":\"1000\"",
            "20000", "500", "ops/ms", "")
        + "]");
    String md = BenchmarkReport.render(BenchmarkReport.readResults(dir), new java.util.Properties(), dir, false);

    String basis = "no bit ceiling; store-bound: one store round trip per segment";
    assertThat(md).contains("## Generators\n").contains("## Segment generators\n")
        .contains("| generator | call | layout | first step | ceiling | 1 thread (ops/ms) | 2 threads (ops/ms) |\n"
            + "|---|---|---|--:|---|--:|--:|\n")
        .contains("| gene-id GeneSegmentGenerator | `nextId(), spread` | V57 G6 | 1,000 | "
            + basis + " (step adapts from 1,000 up to 1,000,000) | 30,000 | 20,000 ± 500 |\n")
        .contains("| gene-id GeneSegmentGenerator | `nextId(), spread` | V57 G6 | 100,000 | "
            + basis + " (step adapts from 100,000 up to 1,000,000) | 80,000 ± 200 | – |\n")
        .contains("| CosId 2.x SegmentChainId | `generate()` | V63 | 100,000 | "
            + basis + " (100,000 x segments merged while hungry) | 90,000 ± 100 | – |\n")
        .doesNotContain("NaN");
    String segments = md.substring(md.indexOf("## Segment generators"));
    assertThat(segments).doesNotContain("| ratio |").doesNotContain("Hutool");
    assertThat(md.indexOf("Hutool")).isLessThan(md.indexOf("## Segment generators"));
    // by step, then gene-id before CosId
    int ours100k = segments.indexOf("GeneSegmentGenerator | `nextId(), spread` | V57 G6 | 100,000");
    assertThat(segments.indexOf("| 1,000 |")).isLessThan(ours100k);
    assertThat(ours100k).isLessThan(segments.indexOf("CosId 2.x SegmentChainId"));
  }

  @Test
  void theEndToEndRunsOnRealDatabasesAreFoldedInBetweenMarkersAFullRunBeforeAQuickOne() throws Exception {
    Files.writeString(dir.resolve("smoke.json"), "["
        + result("io.geneid.benchmarks.PeerBenchmark.yitter", "thrpt", 1, "", "59", "\"NaN\"", "ops/ms", "") + "]");
    String none = BenchmarkReport.render(BenchmarkReport.readResults(dir), new java.util.Properties(), dir, false);
    assertThat(none).contains(E2eReport.BEGIN + "\nNo results yet: run `gene-id-benchmarks/e2e.sh --db mariadb`");

    Files.writeString(dir.resolve("e2e-mariadb-quick.md"), "### MariaDB — QUICK RUN, preliminary\n");
    Files.writeString(dir.resolve("e2e-postgresql-quick.md"), "### PostgreSQL — QUICK RUN, preliminary\n");
    Files.writeString(dir.resolve("e2e-postgresql.md"), "### PostgreSQL\n\n| full |\n");
    String md = BenchmarkReport.render(BenchmarkReport.readResults(dir), new java.util.Properties(), dir, false);
    assertThat(md).contains("## End to end on MariaDB, PostgreSQL and H2 (`e2e.sh`)\n\n" + BenchmarkReport.E2E_INTRO
        + "\n\n" + E2eReport.BEGIN + "\n### MariaDB — QUICK RUN, preliminary\n\n### PostgreSQL\n\n| full |\n"
        + E2eReport.END + "\n").doesNotContain("### PostgreSQL — QUICK RUN");
    // e2e.sh fills the same part of a report run.sh wrote, and leaves the rest
    String spliced = E2eReport.splice(md, "### H2\n");
    assertThat(spliced).startsWith(md.substring(0, md.indexOf(E2eReport.BEGIN)))
        .contains(E2eReport.BEGIN + "\n### H2\n" + E2eReport.END);
  }

  @Test
  void aSmokeRunIsLabelled() throws Exception {
    Files.writeString(dir.resolve("smoke.json"), "["
        + result("io.geneid.benchmarks.PeerBenchmark.yitter", "thrpt", 1, "", "59", "\"NaN\"", "ops/ms", "") + "]");
    Path out = dir.resolve("BENCHMARKS.md");
    BenchmarkReport.main(new String[] {dir.toString(), out.toString(), "--smoke"});
    assertThat(Files.readString(out)).contains("**SMOKE RUN: not a measurement.**")
        .contains("| T51 W6 S6 | 59 | 2^S - 5 reserved = 59 | up to 2000 ms (\"drift\") | 59.00 | 1.00 (bits) |")
        .contains("| date (UTC) | ? |");
  }

  @Test
  void anEmptyResultsDirectoryIsAnError() {
    assertThatThrownBy(() -> BenchmarkReport.readResults(dir)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("no JMH *.json result in " + dir.toAbsolutePath());
  }

  @Test
  void limitedByFollowsTheRatio() {
    assertThat(BenchmarkReport.limitedBy(0.94)).isEqualTo("CPU");
    assertThat(BenchmarkReport.limitedBy(0.95)).isEqualTo("bits");
    assertThat(BenchmarkReport.limitedBy(1.05)).isEqualTo("bits");
    assertThat(BenchmarkReport.limitedBy(1.06)).isEqualTo("ahead of clock");
  }
}
