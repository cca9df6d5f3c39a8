package io.geneid.benchmarks.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The machine's load around one benchmark phase, from Linux's {@code /proc}: the 1-minute load average when the
 * phase starts, and the CPU that processes other than this JVM and the database server used while it ran (in
 * cores), so a noisy figure can be told from a slow one. On a system without {@code /proc} every figure is NaN.
 *
 * <p>CPU time is read in clock ticks from {@code /proc/stat} (all CPUs) and {@code /proc/<pid>/stat} (utime +
 * stime) of this process and of every process whose name is one of {@code serverNames}: the ticks cancel out, so
 * {@code other = (busy - self - server) / (all / cpus)}.
 */
final class MachineLoad {

  private static final Path PROC = Path.of("/proc");

  private final Set<String> serverNames;

  /**
   * Counts the CPU of the processes named {@code serverNames} (e.g. {@code mariadbd}, {@code postgres}) as the
   * database server's.
   */
  MachineLoad(Set<String> serverNames) {
    this.serverNames = Set.copyOf(serverNames);
  }

  /** A reading at the start of a phase; {@link Mark#end()} gives the phase's figures. */
  Mark start() {
    return new Mark(loadAverage(), ticks());
  }

  /** The figures of one phase: load average at its start, cores used by this JVM, the server and the rest. */
  record Phase(double loadAverage, double selfCores, double serverCores, double otherCores) {}

  /** A reading taken at the start of a phase. */
  final class Mark {
    private final double load;
    private final long @Nullable [] start;

    private Mark(double load, long @Nullable [] start) {
      this.load = load;
      this.start = start;
    }

    /** The figures from the start to now. */
    Phase end() {
      long[] end = ticks();
      if (start == null || end == null) {
        return new Phase(load, Double.NaN, Double.NaN, Double.NaN);
      }
      double wall = (double) (end[0] - start[0]) / end[4]; // ticks of one CPU
      if (wall <= 0) {
        return new Phase(load, 0, 0, 0);
      }
      double busy = end[1] - start[1];
      double self = end[2] - start[2];
      double server = end[3] - start[3];
      return new Phase(load, self / wall, server / wall, Math.max(0, busy - self - server) / wall);
    }
  }

  /** {all ticks, busy ticks, this process, server processes, CPUs}, or null without /proc. */
  private long @Nullable [] ticks() {
    try {
      List<String> lines = Files.readAllLines(PROC.resolve("stat"), StandardCharsets.US_ASCII);
      long cpus = lines.stream().filter(l -> l.matches("cpu\\d+ .*")).count();
      String cpu = lines.get(0);
      String[] f = cpu.trim().split("\\s+"); // cpu user nice system idle iowait irq softirq steal ...
      long all = 0;
      for (int i = 1; i < Math.min(f.length, 9); i++) {
        all += Long.parseLong(f[i]);
      }
      long idle = Long.parseLong(f[4]) + Long.parseLong(f[5]);
      long self = processTicks(PROC.resolve("self").resolve("stat"));
      long server = 0;
      try (DirectoryStream<Path> pids = Files.newDirectoryStream(PROC, p -> p.getFileName().toString()
          .chars().allMatch(Character::isDigit))) {
        for (Path pid : pids) {
          try {
            String comm = Files.readString(pid.resolve("comm"), StandardCharsets.US_ASCII).trim();
            if (serverNames.contains(comm)) {
              server += processTicks(pid.resolve("stat"));
            }
          } catch (IOException | RuntimeException gone) {
            // the process ended between the listing and the read
          }
        }
      }
      return new long[] {all, all - idle, self, server, Math.max(1, cpus)};
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** utime + stime of a {@code /proc/<pid>/stat} line (fields 14 and 15, after the parenthesised name). */
  private static long processTicks(Path stat) throws IOException {
    String s = Files.readString(stat, StandardCharsets.US_ASCII);
    String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(f[11]) + Long.parseLong(f[12]);
  }

  private static double loadAverage() {
    try {
      return Double.parseDouble(Files.readString(PROC.resolve("loadavg")).split(" ")[0]);
    } catch (IOException | RuntimeException e) {
      return Double.NaN;
    }
  }
}
