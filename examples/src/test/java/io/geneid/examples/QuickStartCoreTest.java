package io.geneid.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.GeneIdLayout;
import io.geneid.core.GeneIdParts;
import io.geneid.core.snowflake.GeneSnowflakeGenerator;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The README's quick start 3 (the core alone) is the code between the markers below, and it runs. */
class QuickStartCoreTest {

  @Test
  void theReadmeSnippetIsThisCodeAndItRuns() throws Exception {
    String readme = Files.readString(Path.of("..", "README.md"), StandardCharsets.UTF_8);
    Matcher block = Pattern.compile("## Quick start 3: the core alone.*?```java\\n(.*?)```", Pattern.DOTALL)
        .matcher(readme);
    assertThat(block.find()).as("the java block of the README's quick start 3").isTrue();
    String source = Files.readString(Path.of("src/test/java/io/geneid/examples/QuickStartCoreTest.java"),
        StandardCharsets.UTF_8);
    Matcher region = Pattern.compile("// quick start 3 begin\\n(.*?)\\s*// quick start 3 end", Pattern.DOTALL)
        .matcher(source);
    assertThat(region.find()).isTrue();
    String statements = block.group(1).lines().filter(l -> !l.startsWith("import ")).reduce("", (a, l) -> a + l + "\n");
    assertThat(region.group(1).stripIndent().strip()).isEqualTo(statements.strip());

    // quick start 3 begin
    GeneSnowflakeGenerator ids = GeneSnowflakeGenerator.builder().workerId(7).build();
    long orderId = ids.nextId();                       // a root id
    long itemId = ids.nextIdFor(orderId);              // carries orderId's gene
    long shard = ids.getGene(itemId) % 4;              // == ids.getGene(orderId) % 4: the same shard of 4
    GeneIdParts parts = GeneIdLayout.defaults().decode(itemId);   // timestamp, worker id, sequence, gene
    // quick start 3 end

    assertThat(shard).isEqualTo(ids.getGene(orderId) % 4);
    assertThat(parts.workerId()).isEqualTo(7);
    assertThat(parts.gene()).isEqualTo(ids.getGene(orderId));
    assertThat(itemId).isNotEqualTo(orderId);
  }
}
