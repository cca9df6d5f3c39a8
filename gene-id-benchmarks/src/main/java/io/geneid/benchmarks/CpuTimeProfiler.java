package io.geneid.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * CPU time per operation, for machines where other work shares the cores and {@code -prof perfnorm} has no hardware
 * counters (a virtual machine): {@code -prof io.geneid.benchmarks.CpuTimeProfiler}. Two secondary results per
 * iteration, each divided by every operation of the iteration (all threads, the synchronisation phases included, as
 * the CPU time is):
 * <ul>
 *   <li>{@code cpu.worker}: CPU time of the benchmark's own threads ({@code *-jmh-worker-*},
 *       {@link ThreadMXBean#getThreadCpuTime(long)}): what the code under test costs the threads that call it, whatever
 *       else ran on the cores meanwhile;
 *   <li>{@code cpu.process}: CPU time of the whole JVM: the workers plus daemon threads the code starts (gene-id's
 *       clock thread), the JIT and the GC.
 * </ul>
 * Needs no native library; it lives on its own (JMH only) so that a build of an older commit can run it too
 * ({@code gene-id-benchmarks/ab.sh} puts this class beside the other side's benchmarks).
 */
public final class CpuTimeProfiler implements InternalProfiler {

  private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
  private final com.sun.management.OperatingSystemMXBean os =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
  private Map<Long, Long> workersBefore = Map.of();
  private long processBefore;

  @Override
  public String getDescription() {
    return "CPU time per op of the JMH worker threads (ThreadMXBean) and of the whole JVM";
  }

  @Override
  public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
    workersBefore = workerCpu();
    processBefore = os.getProcessCpuTime();
  }

  @Override
  public Collection<? extends Result> afterIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams,
      IterationResult result) {
    long process = os.getProcessCpuTime() - processBefore;
    long workers = 0L;
    for (Map.Entry<Long, Long> e : workerCpu().entrySet()) {
      // a worker started during the iteration counts from zero
      workers += e.getValue() - workersBefore.getOrDefault(e.getKey(), 0L);
    }
    double ops = Math.max(1L, result.getMetadata().getAllOps());
    return List.of(
        new ScalarResult("cpu.worker", workers / ops, "ns/op", AggregationPolicy.AVG),
        new ScalarResult("cpu.process", process / ops, "ns/op", AggregationPolicy.AVG));
  }

  private Map<Long, Long> workerCpu() {
    Map<Long, Long> cpu = new HashMap<>();
    for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (info != null && info.getThreadName().contains("jmh-worker")) {
        long t = threads.getThreadCpuTime(info.getThreadId());
        if (t >= 0) {
          cpu.put(info.getThreadId(), t);
        }
      }
    }
    return cpu;
  }
}
