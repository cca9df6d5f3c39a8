#!/usr/bin/env bash
# Runs the whole gene-id benchmark suite and regenerates gene-id-benchmarks/BENCHMARKS.md.
#
#   gene-id-benchmarks/run.sh            # full suite: ~35 minutes on 2 cores; run it on a quiet machine
#   SMOKE=1 gene-id-benchmarks/run.sh    # one short iteration each (~2.5 minutes): proves the suite runs, measures
#                                        # nothing; writes to gene-id-benchmarks/target/, labelled SMOKE RUN
#
# Steps: build the module (and gene-id-core) without tests; record the machine in results/environment.properties;
# run JMH on the generator benchmarks (snowflake and segment) and the CPU cost per id at 1 and at 2 threads
# (generators in FORKS forks, costs at 2 threads too), then on the ShardingSphere end-to-end benchmarks at 1 thread,
# each writing its raw JSON (and its console log) to results/; write BENCHMARKS.md from those files (no hand-copied
# figures). The end-to-end runs on MariaDB, PostgreSQL and H2 are a separate command, gene-id-benchmarks/e2e.sh; the
# report keeps their tables (results/e2e-*.md) in its last section.
#
# Environment overrides: JMH_OPTS (JMH run options but forks, default "-wi 2 -w 1s -i 5 -r 1s"), FORKS (forks of
# the generator runs at 1 and 2 threads and of the 2-thread cost runs, default 3), GENERATORS, COSTS and E2E (JMH
# include regexes), RESULTS (results directory), REPORT (markdown file).
set -euo pipefail
cd "$(dirname "$0")/.."
MODULE=gene-id-benchmarks

if [ "${SMOKE:-0}" = 1 ]; then
  JMH_OPTS=${JMH_OPTS:-"-wi 1 -w 200ms -i 1 -r 500ms"}
  RESULTS=${RESULTS:-$MODULE/target/smoke-results}
  REPORT=${REPORT:-$MODULE/target/BENCHMARKS-smoke.md}
  REPORT_FLAGS=--smoke
  FORKS=${FORKS:-1}
else
  # 2 x 1 s warm-up + 5 x 1 s measured per benchmark and fork: 5 iterations give JMH's 99.9% error bars. 37 generator
  # benchmarks (gene-id 4 calls x 2 layouts, published design 2, peers 5, segment benchmarks 11 x 2 steps) in 3 forks
  # at 1 and at 2 threads, 7 cost benchmarks in 1 fork at 1 thread and 3 at 2 threads, + 4 end-to-end runs, ~8 s a
  # fork: ~32 minutes of JMH after a ~1 minute build.
  JMH_OPTS=${JMH_OPTS:-"-wi 2 -w 1s -i 5 -r 1s"}
  RESULTS=${RESULTS:-$MODULE/results}
  REPORT=${REPORT:-$MODULE/BENCHMARKS.md}
  REPORT_FLAGS=
  FORKS=${FORKS:-3}
fi
COSTS=${COSTS:-'^io\.geneid\.benchmarks\.IdCostBenchmark\.'}
GENERATORS=${GENERATORS:-'^io\.geneid\.benchmarks\.(GeneSnowflake|PublishedGene|Peer|Segment)Benchmark\.'}
E2E=${E2E:-'^io\.geneid\.benchmarks\.e2e\.'}

echo "[bench] building $MODULE"
mvn -B -q -pl "$MODULE" -am package -DskipTests
CP="$MODULE/target/classes:$(cat "$MODULE/target/benchmark-classpath.txt")"

mkdir -p "$RESULTS"
rm -f "$RESULTS"/*.json "$RESULTS"/*.log
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
# changes to anything but what this run writes
if [ -n "$(git status --porcelain -- . ":(exclude)$RESULTS" ":(exclude)$REPORT" 2>/dev/null)" ]; then
  commit="$commit (uncommitted changes)"
fi
{
  echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "nproc=$(nproc)"
  echo "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  echo "loadavg=$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "os=$(uname -srm)"
  echo "commit=$commit"
} > "$RESULTS/environment.properties"

# JMH refuses to start while another JMH run holds /tmp/jmh.lock (a shared machine): wait for it, up to 10 min.
wait_for_jmh_lock() {
  command -v python3 >/dev/null || return 0
  for _ in $(seq 1 300); do
    python3 -c 'import fcntl; fcntl.lockf(open("/tmp/jmh.lock", "a"), fcntl.LOCK_EX | fcntl.LOCK_NB)' 2>/dev/null \
      && return 0
    sleep 2
  done
  echo "[bench] another JMH run has held /tmp/jmh.lock for 10 minutes: giving up" >&2
  return 1
}

jmh() { # name threads forks regex [more JMH options]
  wait_for_jmh_lock
  echo "[bench] JMH: $1 ($2 thread(s), $3 fork(s))"
  local name=$1 threads=$2 forks=$3 include=$4
  shift 4
  # shellcheck disable=SC2086 # JMH_OPTS is a list of options
  java -cp "$CP" org.openjdk.jmh.Main "$include" -t "$threads" -f "$forks" $JMH_OPTS "$@" -foe true -rf json \
    -rff "$RESULTS/$name.json" | tee "$RESULTS/$name.log"
}
# A fork's result depends on more than the code: where the hypervisor places two threads on two vCPUs, and what the
# JIT compiled from the profile of that fork's first second (a segment row at 1 thread gave 132-186 k ids/ms in three
# forks of one build, each fork steady within 2%; with -XX:-TieredCompilation 171-178 k). So the generator rows and
# the 2-thread cost rows run FORKS forks and the report shows the lowest and highest fork beside the score.
jmh generators-1-thread 1 "$FORKS" "$GENERATORS"
jmh generators-2-threads 2 "$FORKS" "$GENERATORS"
# the cost rows also record the CPU time per id of the calling threads (the goal of #44 is read from it)
jmh cost-1-thread 1 1 "$COSTS" -prof io.geneid.benchmarks.CpuTimeProfiler
jmh cost-2-threads 2 "$FORKS" "$COSTS" -prof io.geneid.benchmarks.CpuTimeProfiler
jmh end-to-end 1 1 "$E2E"

# shellcheck disable=SC2086
java -cp "$CP" io.geneid.benchmarks.report.BenchmarkReport "$RESULTS" "$REPORT" $REPORT_FLAGS
