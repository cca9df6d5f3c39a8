package io.geneid.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LayoutConfigTest {

  private static final String G10_LAYOUT = "layout                     T=40 W=7 S=6 G=10, epoch 2024-06-01T00:00:00Z\n";

  @TempDir
  Path dir;

  private String write(String name, String text) throws IOException {
    Path file = dir.resolve(name);
    Files.writeString(file, text);
    return file.toString();
  }

  private CliRun decodeWith(String file) {
    return CliRun.of("decode", "--config", file, "12345");
  }

  @Test
  void readsShardingSpherePropsFromAPropertiesFile() throws IOException {
    String file = write("keygen.properties", """
        worker-id=3
        max-borrow-millis=20
        epoch=2024-06-01T00:00:00Z
        timestamp-bits=40
        worker-bits=7
        sequence-bits=6
        gene-bits=10
        """);
    CliRun run = decodeWith(file);
    assertThat(run.err()).isEmpty();
    assertThat(run.out()).startsWith(G10_LAYOUT).contains("gene                       57\n");
  }

  @Test
  void readsSpringBootPropertiesIncludingRelaxedNames() throws IOException {
    String file = write("application.properties", """
        spring.application.name=orders
        gene-id.worker-id=3
        gene-id.epoch=2024-06-01
        gene-id.timestampBits=40
        gene-id.worker_bits=7
        gene-id.sequence-bits=6
        gene-id.gene-bits=10
        """);
    assertThat(decodeWith(file).out()).startsWith(G10_LAYOUT);
  }

  @Test
  void readsASpringBootYamlBlock() throws IOException {
    String file = write("application.yml", """
        spring:
          application:
            name: orders
        gene-id:
          worker-id: 3
          epoch: 2024-06-01T00:00:00Z
          timestamp-bits: 40
          worker-bits: 7
          sequence-bits: 6
          gene-bits: 10
          worker:
            redis:
              uri: redis://127.0.0.1:6379
        """);
    CliRun run = decodeWith(file);
    assertThat(run.err()).isEmpty();
    assertThat(run.out()).startsWith(G10_LAYOUT);
  }

  @Test
  void readsAPropsBlockAndAWholeShardingSphereConfig() throws IOException {
    String props = write("keygen.yaml", """
        type: GENE_SNOWFLAKE
        props:
          worker-id: 3
          epoch: 1717200000000
          timestamp-bits: 40
          worker-bits: 7
          sequence-bits: 6
          gene-bits: 10
        """);
    assertThat(decodeWith(props).out()).startsWith(G10_LAYOUT);

    String sharding = write("sharding.yaml", """
        dataSources:
          ds_0:
            dataSourceClassName: com.zaxxer.hikari.HikariDataSource
            jdbcUrl: jdbc:h2:mem:ds_0
        rules:
        - !SHARDING
          tables:
            t_order:
              actualDataNodes: ds_${0..1}.t_order
              keyGenerateStrategy:
                column: order_id
                keyGeneratorName: gene
          shardingAlgorithms:
            gene_mod:
              type: GENE_MOD
              props:
                sharding-count: 2
          keyGenerators:
            gene:
              type: GENE_SNOWFLAKE
              props:
                worker-id: 3
                epoch: "2024-06-01T00:00:00Z"
                timestamp-bits: 40
                worker-bits: 7
                sequence-bits: 6
                gene-bits: 10
        props:
          sql-show: true
        """);
    CliRun run = decodeWith(sharding);
    assertThat(run.err()).isEmpty();
    assertThat(run.out()).startsWith(G10_LAYOUT);
  }

  @Test
  void flagsOverrideTheFile() throws IOException {
    String file = write("keygen.properties", "gene-bits=10\nsequence-bits=4\n");
    CliRun run = CliRun.of("decode", "--config", file, "--gene-bits", "8", "--sequence-bits", "6", "1");
    assertThat(run.out()).startsWith("layout                     T=41 W=8 S=6 G=8, epoch 2025-01-01T00:00:00Z\n");
  }

  @Test
  void rejectsAnUnknownLayoutKeyNamingIt() throws IOException {
    String yaml = write("application.yml", """
        gene-id:
          gene-bit: 10
        """);
    assertThat(decodeWith(yaml)).isEqualTo(new CliRun(2, "", "gene-id decode: unknown layout key 'gene-id.gene-bit'"
        + " in " + yaml + ": the layout keys are epoch, timestamp-bits, worker-bits, sequence-bits, gene-bits\n"));
    String properties = write("keygen.properties", "epoch-millis=1717200000000\n");
    assertThat(decodeWith(properties).err()).isEqualTo("gene-id decode: unknown layout key 'epoch-millis' in "
        + properties + ": the layout keys are epoch, timestamp-bits, worker-bits, sequence-bits, gene-bits\n");
  }

  @Test
  void rejectsBadValuesAndBadLayoutsNamingTheFile() throws IOException {
    String words = write("keygen.properties", "gene-bits=ten\n");
    assertThat(decodeWith(words).err())
        .isEqualTo("gene-id decode: " + words + ": gene-bits must be a whole number but was 'ten'\n");
    String sum = write("sum.yml", "gene-id:\n  gene-bits: 10\n");
    assertThat(decodeWith(sum)).isEqualTo(new CliRun(2, "", "gene-id decode: invalid layout (from " + sum
        + "): timestamp-bits + worker-bits + sequence-bits + gene-bits must be 63 (the defaults are 41 + 8 + 8 + 6) but was 67 (41 + 8 + 8 + 10)\n"));
    String epoch = write("epoch.yml", "gene-id:\n  epoch: soon\n");
    assertThat(decodeWith(epoch).err()).isEqualTo("gene-id decode: " + epoch + ": gene-id.epoch must be an ISO-8601"
        + " instant such as 2025-01-01T00:00:00Z, a date such as 2025-01-01 (UTC) or Unix milliseconds but was"
        + " 'soon'\n");
  }

  @Test
  void rejectsTwoDifferentLayoutsInOneFile() throws IOException {
    String file = write("two.yml", """
        gene-id:
          gene-bits: 6
        props:
          gene-bits: 8
          sequence-bits: 6
        """);
    assertThat(decodeWith(file).err()).isEqualTo("gene-id decode: " + file + " holds 2 different layouts (under"
        + " 'gene-id' and 'props'): pass the one you mean with flags\n");
    String twice = write("twice.properties", "gene-id.gene-bits=6\ngene-id.geneBits=6\n");
    assertThat(decodeWith(twice).err()).isEqualTo("gene-id decode: " + twice + " sets gene-bits twice:"
        + " gene-id.gene-bits and gene-id.geneBits\n");
  }

  @Test
  void reportsUnreadableFilesInOneLine() throws IOException {
    String missing = dir.resolve("nope.yml").toString();
    assertThat(decodeWith(missing)).isEqualTo(new CliRun(2, "", "gene-id decode: config file " + missing
        + " does not exist\n"));
    String broken = write("broken.yml", "gene-id:\n  gene-bits: [6\n");
    assertThat(decodeWith(broken).err()).startsWith("gene-id decode: config file " + broken + " is not valid YAML: ")
        .endsWith("\n").hasLineCount(1);
    String duplicate = write("dup.yml", "gene-id:\n  gene-bits: 6\n  gene-bits: 7\n");
    assertThat(decodeWith(duplicate).err()).startsWith("gene-id decode: config file " + duplicate
        + " is not valid YAML: found duplicate key gene-bits").hasLineCount(1);
    String text = write("layout.txt", "gene-bits=6\n");
    assertThat(decodeWith(text).err()).isEqualTo("gene-id decode: config file must end with .properties, .yml or"
        + " .yaml but was " + text + "\n");
  }

  @Test
  void aFileWithoutLayoutKeysUsesTheDefaultsAndSaysSo() throws IOException {
    String file = write("application.yml", "gene-id:\n  worker-id: 3\n");
    CliRun run = decodeWith(file);
    assertThat(run.status()).isZero();
    assertThat(run.out()).startsWith("layout                     T=41 W=8 S=8 G=6, epoch 2025-01-01T00:00:00Z\n");
    assertThat(run.err()).isEqualTo("note: " + file + " sets no layout key (epoch, timestamp-bits, worker-bits,"
        + " sequence-bits, gene-bits at the top level, under gene-id or under props): using the default layout\n");
  }
}
