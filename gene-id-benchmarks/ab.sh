#!/usr/bin/env bash
# Alternating A/B runs of one JMH benchmark built at two or more commits, for a machine whose speed drifts (other
# builds, a shared VM): each round runs one fork of every side at every thread count, in an order that rotates from
# round to round, so drift falls on every side alike. Every fork records the load average before it, the score,
# the CPU time per op of the calling threads and of the whole JVM (io.geneid.benchmarks.CpuTimeProfiler, which needs
# no hardware counter) and the bytes allocated per op (-prof gc); AbReport prints the table (median [min-max] over
# the forks, each side against the first, 2 threads against 1).
#
#   gene-id-benchmarks/ab.sh                                   # A = the commit before the package layering, B = HEAD
#   gene-id-benchmarks/ab.sh --side A=536d0d5 --side B=2697784 --side C=HEAD --rounds 8
#   gene-id-benchmarks/ab.sh --side B=HEAD --side W=worktree   # HEAD against uncommitted changes
#
# Options: --side LABEL=REV (repeat; REV is any git revision, or "worktree" for this work tree as it is),
# --bench REGEX (default 'IdCostBenchmark.plainNextIdSpread$': nextId() spread over the genes, layout T41 W0 S16 G6,
# whose bits never bind), --threads "1 2", --rounds N (default 6), --jmh "JMH options but forks and threads"
# (default "-wi 3 -w 1s -i 5 -r 1s"), --out DIR (default gene-id-benchmarks/target/ab-<time>), --keep (keep the
# worktrees under ${TMPDIR:-/tmp}/gene-id-ab for another run; by default the ones this run added are removed).
# Each side is built with `mvn -B -q -pl gene-id-benchmarks -am package -DskipTests` in a git worktree of its own
# (never `mvn install`). About 11 s per fork: 2 sides x 2 thread counts x 6 rounds is ~5 minutes after the builds.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

SIDES=()
BENCH='IdCostBenchmark.plainNextIdSpread$'
THREADS="1 2"
ROUNDS=6
JMH_RUN="-wi 3 -w 1s -i 5 -r 1s"
OUT=""
KEEP=0
while [ $# -gt 0 ]; do
  case "$1" in
    --side) SIDES+=("$2"); shift 2 ;;
    --bench) BENCH=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --jmh) JMH_RUN=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --keep) KEEP=1; shift ;;
    *) echo "unknown option $1 (see the head of $0)" >&2; exit 2 ;;
  esac
done
if [ ${#SIDES[@]} -eq 0 ]; then
  # the commit that added PackageLayersTest layered gene-id-core's packages (internal.Scopes took the scope stack)
  layering=$(git log --diff-filter=A --format=%H -- gene-id-core/src/test/java/io/geneid/core/PackageLayersTest.java | tail -1)
  SIDES=("A=$layering^" "B=HEAD")
fi
OUT=${OUT:-gene-id-benchmarks/target/ab-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
ABROOT=${TMPDIR:-/tmp}/gene-id-ab
mkdir -p "$ABROOT"

ADDED=()
cleanup() {
  if [ "$KEEP" = 0 ]; then
    for dir in "${ADDED[@]}"; do
      git -C "$ROOT" worktree remove --force "$dir" 2>/dev/null || true
    done
  fi
}
trap cleanup EXIT

# side label -> class path of its benchmarks
declare -A CP
: > "$OUT/sides.tsv"
for side in "${SIDES[@]}"; do
  label=${side%%=*}
  rev=${side#*=}
  if [ "$rev" = worktree ]; then
    dir=$ROOT
    echo "[ab] $label: this work tree, building"
    subject="work tree at $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . || echo ' + uncommitted changes')"
  else
    sha=$(git rev-parse --verify "$rev^{commit}")
    dir=$ABROOT/${sha:0:12}
    subject="$(git log -1 --format='%h %s' "$sha" | cut -c1-80)"
    if [ ! -d "$dir" ]; then
      git worktree add --detach "$dir" "$sha" >/dev/null
      ADDED+=("$dir")
    fi
    echo "[ab] $label: $subject, building in $dir"
  fi
  if [ "$rev" = worktree ] || [ ! -f "$dir/gene-id-benchmarks/target/ab-built" ]; then
    (cd "$dir" && mvn -B -q -pl gene-id-benchmarks -am package -DskipTests)
    [ "$rev" = worktree ] || touch "$dir/gene-id-benchmarks/target/ab-built"
  fi
  CP[$label]="$dir/gene-id-benchmarks/target/classes:$(cat "$dir/gene-id-benchmarks/target/benchmark-classpath.txt")"
  printf '%s\t%s\t%s\n' "$label" "$rev" "$subject" >> "$OUT/sides.tsv"
done

# The CPU-time profiler and the report of this work tree, compiled on their own (JMH and Jackson only), so that sides
# older than them can run them too.
PROFILER=$OUT/profiler
mkdir -p "$PROFILER"
first_cp=${CP[${SIDES[0]%%=*}]}
javac -nowarn -d "$PROFILER" -cp "$first_cp" gene-id-benchmarks/src/main/java/io/geneid/benchmarks/CpuTimeProfiler.java \
  gene-id-benchmarks/src/main/java/io/geneid/benchmarks/report/AbReport.java

# JMH refuses to start while another JMH run holds /tmp/jmh.lock (a shared machine): wait for it, up to 10 minutes.
wait_for_jmh_lock() {
  command -v python3 >/dev/null || return 0
  for _ in $(seq 1 300); do
    python3 -c 'import fcntl; fcntl.lockf(open("/tmp/jmh.lock", "a"), fcntl.LOCK_EX | fcntl.LOCK_NB)' 2>/dev/null \
      && return 0
    sleep 2
  done
  echo "[ab] another JMH run has held /tmp/jmh.lock for 10 minutes: giving up" >&2
  return 1
}

labels=()
for side in "${SIDES[@]}"; do labels+=("${side%%=*}"); done
n=${#labels[@]}
: > "$OUT/loads.tsv"
for round in $(seq 1 "$ROUNDS"); do
  for threads in $THREADS; do
    for k in $(seq 0 $((n - 1))); do
      # rotate the order every round: A B C, B C A, C A B, ...
      label=${labels[$(( (k + round - 1) % n ))]}
      wait_for_jmh_lock
      load=$(cut -d' ' -f1-3 /proc/loadavg)
      printf '%s\t%s\t%s\t%s\t%s\n' "$(date -u +%H:%M:%S)" "$label" "$threads" "$round" "${load// /$'\t'}" \
        >> "$OUT/loads.tsv"
      echo "[ab] round $round/$ROUNDS, $threads thread(s), $label (load $load)"
      # shellcheck disable=SC2086 # JMH_RUN is a list of options
      java -cp "$PROFILER:${CP[$label]}" org.openjdk.jmh.Main "$BENCH" -t "$threads" -f 1 $JMH_RUN \
        -prof io.geneid.benchmarks.CpuTimeProfiler -prof gc -foe true -rf json \
        -rff "$OUT/$label-t$threads-r$round.json" > "$OUT/$label-t$threads-r$round.log" 2>&1 \
        || { echo "[ab] fork failed: $OUT/$label-t$threads-r$round.log" >&2; exit 1; }
      grep -E '^[A-Za-z]+Benchmark\.[^ ]+ +avgt|^[A-Za-z]+Benchmark\.[^ ]+:cpu.worker' \
        "$OUT/$label-t$threads-r$round.log" | sed 's/^/    /' || true
    done
  done
done

java -cp "$PROFILER:$first_cp" io.geneid.benchmarks.report.AbReport "$OUT" | tee "$OUT/report.md"
