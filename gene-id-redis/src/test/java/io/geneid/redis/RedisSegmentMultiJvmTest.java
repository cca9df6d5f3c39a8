package io.geneid.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Three JVMs issue segment ids from one Redis at the same time: zero duplicates. */
class RedisSegmentMultiJvmTest {

  static final int JVMS = 3;
  static final int THREADS = 2;
  static final int PER_THREAD = 20_000;

  @Test
  void threeJvmsSharingOneRedisNeverIssueTheSameId(@TempDir Path dir) throws Exception {
    try (SegmentRedis redis = new SegmentRedis()) {
      List<Process> processes = new ArrayList<>();
      for (int i = 0; i < JVMS; i++) {
        processes.add(new ProcessBuilder(javaCommand(redis.prefix, dir, i))
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("log-" + i + ".txt").toFile())
            .start());
      }
      for (int i = 0; i < JVMS; i++) {
        Process p = processes.get(i);
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
          processes.forEach(Process::destroyForcibly);
          throw new AssertionError("JVM " + i + " did not finish within 90 s");
        }
        assertThat(p.exitValue()).as("JVM %d exit code; its output:%n%s", i,
            Files.readString(dir.resolve("log-" + i + ".txt"))).isZero();
      }
      Set<Long> ids = new HashSet<>();
      long total = 0;
      for (int i = 0; i < JVMS; i++) {
        for (String line : Files.readAllLines(dir.resolve("ids-" + i + ".txt"))) {
          long id = Long.parseLong(line);
          total++;
          assertThat(id).isPositive();
          assertThat(ids.add(id)).as("id %d issued twice", id).isTrue();
        }
      }
      assertThat(total).isEqualTo((long) JVMS * THREADS * PER_THREAD);
      assertThat(ids).hasSize(JVMS * THREADS * PER_THREAD);
      // every value the three processes took came from the one counter
      long counter = Long.parseLong(redis.redis().get(redis.prefix + "order"));
      assertThat(ids).allMatch(id -> (id >>> 6) <= counter);
    }
  }

  private static List<String> javaCommand(String prefix, Path dir, int index) {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    return List.of(java, "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        "-cp", System.getProperty("java.class.path"),
        SegmentRedisJvmMain.class.getName(),
        SegmentRedis.URI, prefix, "order", Integer.toString(THREADS), Integer.toString(PER_THREAD), dir.toString(),
        Integer.toString(index), Integer.toString(JVMS));
  }
}
