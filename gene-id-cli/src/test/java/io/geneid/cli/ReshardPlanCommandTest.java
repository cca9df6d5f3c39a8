package io.geneid.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReshardPlanCommandTest {

  @Test
  void twoToFourSplitsEachShard() {
    assertThat(CliRun.of("reshard", "plan", "--sharding-count", "2", "--to", "4")).isEqualTo(new CliRun(0, """
        current map                version 0, 2 targets: 0=0-62/2; 1=1-63/2
        new map                    version 1, 4 targets: 0=0-60/4; 1=1-61/4; 2=2-62/4; 3=3-63/4
        moves                      32 of 64 buckets (50.0% of the data with evenly filled buckets)
            0 -> 2                 16 buckets: 2-62/4
            1 -> 3                 16 buckets: 3-63/4
        yaml                       type: GENE_BUCKET, props: {gene-bits: 6, bucket-map: "0=0-60/4; 1=1-61/4; 2=2-62/4; 3=3-63/4"}
        """, ""));
  }

  @Test
  void fromABucketMapToThree() {
    CliRun run = CliRun.of("reshard", "plan", "--bucket-map", "0=0-3; 1=4-7", "--gene-bits", "3", "--to", "3");
    assertThat(run.status()).isZero();
    assertThat(run.out()).contains("moves                      2 of 8 buckets (25.0%")
        .contains("new map                    version 1, 3 targets: 0=0-2; 1=4-6; 2=3,7");
  }

  @Test
  void readsTheAlgorithmFromAShardingSphereYaml(@TempDir Path dir) throws Exception {
    Path yaml = Files.writeString(dir.resolve("app.yaml"), """
        rules:
        - !SHARDING
          shardingAlgorithms:
            gene_db:
              type: GENE_MOD
              props:
                sharding-count: 2
            grown:
              type: GENE_BUCKET
              props:
                gene-bits: 4
                bucket-map: "0=0-3; 1=4-7; 2=8-11; 3=12-15"
            other:
              type: MOD
              props:
                sharding-count: 2
            auto:
              type: GENE_MOD_AUTO
              props:
                sharding-count: 4
        """);
    assertThat(CliRun.of("reshard", "plan", "--config", yaml.toString(), "--algorithm", "gene_db", "--to", "4")
        .out()).contains("32 of 64 buckets");
    assertThat(CliRun.of("reshard", "plan", "--config", yaml.toString(), "--algorithm", "grown", "--to", "8")
        .out()).contains("8 of 16 buckets").contains("    3 -> 7                 2 buckets: 13,15\n")
        .contains("bucket-map: \"0=0,2; 1=4,6; 2=8,10; 3=12,14; 4=1,3; 5=5,7; 6=9,11; 7=13,15\"");
    assertThat(CliRun.of("reshard", "plan", "--config", yaml.toString(), "--algorithm", "other", "--to", "4"))
        .isEqualTo(new CliRun(2, "", "gene-id reshard plan: " + yaml + ": sharding algorithm 'other' is MOD, not"
            + " GENE_MOD or GENE_BUCKET: only gene routing can grow by moving buckets\n"));
    assertThat(CliRun.of("reshard", "plan", "--config", yaml.toString(), "--algorithm", "nope", "--to", "4").err())
        .isEqualTo("gene-id reshard plan: " + yaml + " defines no sharding algorithm 'nope'; it defines [gene_db,"
            + " grown, other, auto]\n");
    assertThat(CliRun.of("reshard", "plan", "--config", yaml.toString(), "--algorithm", "auto", "--to", "8"))
        .isEqualTo(new CliRun(2, "", "gene-id reshard plan: " + yaml + ": sharding algorithm 'auto' is"
            + " GENE_MOD_AUTO: ShardingSphere places each auto table on one data source (table i on"
            + " actualDataSources[i % n]) from the YAML, so no bucket can move to another database while routing"
            + " follows it; route the family with GENE_BUCKET in tables to grow (docs/resharding.md), which gene-id"
            + " reshard writes for you from autoTables it can read, but here: " + yaml + ": no auto table's"
            + " shardingStrategy uses 'auto'\n"));
  }

  @Test
  void badInputIsOneLine() {
    assertThat(CliRun.of("reshard", "plan", "--to", "4")).isEqualTo(new CliRun(2, "", "gene-id reshard plan: give"
        + " the current map by exactly one of --sharding-count (GENE_MOD), --bucket-map and --config with"
        + " --algorithm, but none was given\n"));
    assertThat(CliRun.of("reshard", "plan", "--sharding-count", "2", "--to", "65").err())
        .isEqualTo("gene-id reshard plan: --to must be in [1, 64] (2^gene-bits = 64 buckets) but was 65\n");
    assertThat(CliRun.of("reshard", "plan", "--bucket-map", "0=0-30", "--to", "2").err())
        .isEqualTo("gene-id reshard plan: bucket-map gives no target to 33 of 64 buckets: 31-63; every bucket of"
            + " [0, 63] needs one\n");
    assertThat(CliRun.of("reshard").status()).isEqualTo(2);
  }
}
