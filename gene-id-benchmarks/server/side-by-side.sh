#!/usr/bin/env bash
# gene-id-server side by side with Meituan Leaf, Didi tinyid and an nginx answering a fixed body (the HTTP ceiling
# of this machine), in one run on this machine (issue #40). Documented in docs/benchmarks.md ("Server, side by side").
#
#   gene-id-benchmarks/server/side-by-side.sh                 # 10 s per point, c = 4 16 64: about 8 minutes
#   SECS=3 WARMUP=2 gene-id-benchmarks/server/side-by-side.sh # a first look
#
# What it does, every process it starts stopped by its pid at the end (also on error or Ctrl-C):
#  1. installs wrk and nginx with apt-get when missing;
#  2. builds gene-id-server's jar and gene-id-benchmarks (the gRPC load driver) unless SKIP_BUILD=1;
#  3. clones Leaf and tinyid (pinned commits) into $CACHE (default ~/.cache/gene-id-bench) and builds them with
#     Maven, unmodified: no patch to their sources, poms or config files is needed. Leaf reads its leaf.properties
#     from the class path, so the script runs Leaf's jar exploded with a leaf.properties of its own first on the
#     class path; tinyid takes its datasource as Spring Boot properties (-D...). Both run on Java 17 with
#     --add-opens java.base/java.lang=ALL-UNNAMED;
#  4. creates MariaDB databases $LEAF_DB and $TINYID_DB (dropped first, and at the end unless KEEP_DB=1) with each
#     project's own schema (Leaf scripts/leaf_alloc.sql, tinyid tinyid-server/db.sql, whose biz type `test` and token
#     it uses) and a Leaf row `bench` (step $LEAF_STEP);
#  5. per system in turn (start, warm up, measure, stop): nginx on a free port with a fixed body; gene-id-server
#     with its embedded defaults and segment key `bench`; Leaf (segment on MariaDB, snowflake with a ZooKeeper 3.4.6
#     from Leaf's own class path); tinyid (segment on MariaDB);
#  6. wrk -t$WRK_THREADS -c{4,16,64} -d${SECS}s --latency per point, after an unmeasured warm-up of $WARMUP s at the
#     highest concurrency; gRPC through GrpcLoadDriver (c calls outstanding over min(c, 4) connections);
#  7. writes gene-id-benchmarks/results/server-<date>.md (OUT=...) and the raw output beside it (.log).
#
# Per point: requests/s, ids/s, p50/p99/p99.9, the server's CPU per request (utime+stime from /proc/<pid>/stat
# before and after), the load client's cores, the 1-minute load average before, and the cores other processes used
# during the point (all busy CPU from /proc/stat minus server and load client). Every JVM runs with the same heap.
#
# Settings (environment): SECS (10), WARMUP (5), CONCURRENCY ("4 16 64"), WRK_THREADS (2), HEAP (512m, -Xms = -Xmx
# for every JVM), EXTRA_JVM_OPTS (added to every server JVM, e.g. a JFR recording), SYSTEMS ("nginx gene-id leaf
# tinyid"), CACHE, LEAF_GIT / LEAF_COMMIT, TINYID_GIT / TINYID_COMMIT, DB_HOST (127.0.0.1), DB_PORT (3306), DB_USER
# (root, no password), LEAF_DB (leaf_bench), TINYID_DB (tinyid_bench), LEAF_STEP (1000), TINYID_REQUEST_LOG (0: its
# per-request INFO log line off; 1: as shipped), GRPC_DRIVER_OPTS (e.g. -Dgrpc.direct=true), SKIP_BUILD, KEEP_DB,
# KEEP_WORK, OUT.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD

SECS=${SECS:-10}
WARMUP=${WARMUP:-5}
CONCURRENCY=${CONCURRENCY:-"4 16 64"}
WRK_THREADS=${WRK_THREADS:-2}
HEAP=${HEAP:-512m}
SYSTEMS=${SYSTEMS:-"nginx gene-id leaf tinyid"}
CACHE=${CACHE:-$HOME/.cache/gene-id-bench}
LEAF_GIT=${LEAF_GIT:-https://github.com/Meituan-Dianping/Leaf.git}
LEAF_COMMIT=${LEAF_COMMIT:-86a6441}
TINYID_GIT=${TINYID_GIT:-https://github.com/didi/tinyid.git}
TINYID_COMMIT=${TINYID_COMMIT:-49976d3}
DB_HOST=${DB_HOST:-127.0.0.1}
DB_PORT=${DB_PORT:-3306}
DB_USER=${DB_USER:-root}
LEAF_DB=${LEAF_DB:-leaf_bench}
TINYID_DB=${TINYID_DB:-tinyid_bench}
LEAF_STEP=${LEAF_STEP:-1000}
TINYID_REQUEST_LOG=${TINYID_REQUEST_LOG:-0}
TINYID_TOKEN=0f673adf80504e2eaa552f5d791b644c # tinyid-server/db.sql's token for biz type `test`
DATE=$(date -u +%F)
OUT=${OUT:-gene-id-benchmarks/results/server-$DATE.md}
RAW=${OUT%.md}.log
mkdir -p "$(dirname "$OUT")"
JVM_OPTS="-Xms$HEAP -Xmx$HEAP ${EXTRA_JVM_OPTS:-}"
JAR=gene-id-server/target/gene-id-server.jar
LUA=$ROOT/gene-id-benchmarks/server/results.lua
MAX_C=$(tr ' ' '\n' <<< "$CONCURRENCY" | sort -n | tail -1)
CLK=$(getconf CLK_TCK)
CPUS=$(nproc)

log() { echo "[side-by-side $(date -u +%T)] $*" | tee -a "$RAW" >&2; }

# ---------------------------------------------------------------------------------------------- processes
PIDS=()
WORK=$(mktemp -d /tmp/gene-id-side-by-side.XXXXXX)
: > "$RAW"

# stops one process we started: SIGTERM, up to 15 s, then SIGKILL; reaps it
stop_pid() {
  local pid=$1 i state
  kill -TERM "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; }
  for i in $(seq 150); do
    state=$(ps -o stat= -p "$pid" 2>/dev/null || true)
    [[ -z "$state" || "$state" == Z* ]] && break
    sleep 0.1
  done
  state=$(ps -o stat= -p "$pid" 2>/dev/null || true)
  if [[ -n "$state" && "$state" != Z* ]]; then
    log "pid $pid did not stop on SIGTERM: SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true
}

stop_all() {
  local i
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do
    stop_pid "${PIDS[i]}"
  done
  PIDS=()
}

mysql_() { mysql -h"$DB_HOST" -P"$DB_PORT" -u"$DB_USER" "$@"; }

cleanup() {
  stop_all
  if [[ "${KEEP_DB:-0}" != 1 && -n "${DBS_CREATED:-}" ]]; then
    mysql_ -e "DROP DATABASE IF EXISTS \`$LEAF_DB\`; DROP DATABASE IF EXISTS \`$TINYID_DB\`" 2>/dev/null || true
  fi
  if [[ "${KEEP_WORK:-0}" == 1 ]]; then
    echo "[side-by-side] work folder kept: $WORK" >&2
  else
    rm -rf "$WORK"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
  local p
  while :; do
    p=$((20000 + RANDOM % 20000))
    if [[ -z "$(ss -ltnH "sport = :$p" 2>/dev/null)" ]]; then
      echo "$p"
      return
    fi
  done
}

# waits until curl -sf URL answers a body matching REGEX (default: anything)
wait_http() {
  local url=$1 regex=${2:-.} what=$3 pid=$4 i body
  for i in $(seq 600); do
    body=$(curl -sf --max-time 2 "$url" 2>/dev/null || true)
    if [[ -n "$body" && "$body" =~ $regex ]]; then
      log "$what answers: $(head -c 120 <<< "$body")"
      return 0
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
      log "$what (pid $pid) exited while starting"
      return 1
    fi
    sleep 0.5
  done
  log "$what did not answer $url within 300 s"
  return 1
}

# ---------------------------------------------------------------------------------------------- measuring
# utime + stime of the given pids, in ticks
proc_ticks() {
  local sum=0 pid t
  for pid in "$@"; do
    t=$(awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$pid/stat" 2>/dev/null || echo 0)
    sum=$((sum + t))
  done
  echo "$sum"
}

# "busy all" ticks of the whole machine
machine_ticks() {
  awk '/^cpu / { all = 0; for (i = 2; i <= 9; i++) all += $i; print all - $5 - $6, all }' /proc/stat
}

# seconds of CPU used by this shell's waited-for children, from the `times` output in file $1
children_secs() {
  awk 'NR == 2 { s = 0; for (i = 1; i <= 2; i++) { f = $i; sub(/s$/, "", f); split(f, a, "m"); s += a[1] * 60 + a[2] }
    print s }' "$1"
}

ROWS=$WORK/rows.tsv
: > "$ROWS"

# one wrk point: system, label, ids per request, c, url, server pids...
http_point() {
  local system=$1 label=$2 ids=$3 c=$4 url=$5
  shift 5
  local load s0 s1 m0 m1 t
  load=$(cut -d' ' -f1 /proc/loadavg)
  s0=$(proc_ticks "$@")
  read -r -a m0 <<< "$(machine_ticks)"
  times > "$WORK/times0"
  t=$WRK_THREADS
  ((t > c)) && t=$c
  wrk -t"$t" -c"$c" -d"${SECS}s" --latency -s "$LUA" "$url" > "$WORK/wrk.out" 2>&1 || true
  times > "$WORK/times1"
  s1=$(proc_ticks "$@")
  read -r -a m1 <<< "$(machine_ticks)"
  {
    echo "== $system | $label | c=$c | wrk -t$t -c$c -d${SECS}s --latency $url | load before $load"
    cat "$WORK/wrk.out"
  } >> "$RAW"
  local result client
  result=$(grep '^RESULT' "$WORK/wrk.out" || echo "RESULT requests=0 duration_us=1 errors=-1 non2xx=0 p50_us=0 p99_us=0 p999_us=0 max_us=0")
  client=$(awk -v a="$(children_secs "$WORK/times0")" -v b="$(children_secs "$WORK/times1")" -v k="$CLK" \
    'BEGIN { printf "%d", (b - a) * k }')
  awk -v sys="$system" -v label="$label" -v ids="$ids" -v c="$c" -v la="$load" -v proto=HTTP \
    -v sticks=$((s1 - s0)) -v cticks="$client" -v busy=$((m1[0] - m0[0])) -v all=$((m1[1] - m0[1])) \
    -v cpus="$CPUS" -v clk="$CLK" -f <(cat <<'AWK'
{ for (i = 2; i <= NF; i++) { split($i, kv, "="); r[kv[1]] = kv[2] } }
END {
  secs = r["duration_us"] / 1e6; req = r["requests"]
  wall = all / cpus
  other = wall > 0 ? (busy - sticks - cticks) / wall : 0
  if (other < 0) other = 0
  printf "%s\t%s\t%s\t%d\t%.0f\t%.0f\t%.3f\t%.3f\t%.3f\t%.1f\t%.2f\t%.2f\t%.2f\t%d\n", sys, proto, label, c,
    req / secs, req * ids / secs, r["p50_us"] / 1000, r["p99_us"] / 1000, r["p999_us"] / 1000,
    (req > 0 ? sticks / clk * 1e6 / req : 0), cticks / clk / secs, la, other, r["errors"] + r["non2xx"]
}
AWK
) <<< "$result" >> "$ROWS"
  tail -1 "$ROWS" | tee -a "$RAW" >&2
}

warm() { # url
  local t=$WRK_THREADS
  ((t > MAX_C)) && t=$MAX_C
  wrk -t"$t" -c"$MAX_C" -d"${WARMUP}s" "$1" > /dev/null 2>&1 || true
}

http_rows() { # system label ids path-url pids...
  local system=$1 label=$2 ids=$3 url=$4 c
  shift 4
  warm "$url"
  for c in $CONCURRENCY; do
    http_point "$system" "$label" "$ids" "$c" "$url" "$@"
  done
}

# gRPC points through GrpcLoadDriver: label kind count port server-pid
grpc_rows() {
  local label=$1 kind=$2 count=$3 port=$4 pid=$5
  local list
  list=$(tr ' ' ',' <<< "$CONCURRENCY")
  # shellcheck disable=SC2086 # JVM_OPTS is a list of options
  java -Xms"$HEAP" -Xmx"$HEAP" ${GRPC_DRIVER_OPTS:-} -cp "$JAR:gene-id-benchmarks/target/classes" \
    io.geneid.benchmarks.server.GrpcLoadDriver 127.0.0.1 "$port" "$pid" "$kind" "$count" bench "$SECS" \
    "$WARMUP" 4 "$list" > "$WORK/grpc.out" 2>&1 || true
  {
    echo "== gene-id | gRPC $label | GrpcLoadDriver $kind count=$count c=$list"
    cat "$WORK/grpc.out"
  } >> "$RAW"
  grep '^RESULT' "$WORK/grpc.out" | awk -v label="$label" -v cpus="$CPUS" -v clk="$CLK" '
    { delete r; for (i = 2; i <= NF; i++) { split($i, kv, "="); r[kv[1]] = kv[2] }
      secs = r["seconds"]; req = r["requests"]; wall = r["all_ticks"] / cpus
      other = wall > 0 ? (r["busy_ticks"] - r["server_ticks"] - r["self_ticks"]) / wall : 0
      if (other < 0) other = 0
      printf "gene-id\tgRPC\t%s\t%d\t%.0f\t%.0f\t%.3f\t%.3f\t%.3f\t%.1f\t%.2f\t%.2f\t%.2f\t%d\n", label, r["c"],
        req / secs, req * r["count"] / secs, r["p50_us"] / 1000, r["p99_us"] / 1000, r["p999_us"] / 1000,
        (req > 0 ? r["server_ticks"] / clk * 1e6 / req : 0), r["self_ticks"] / clk / secs, r["load"], other,
        r["errors"] }' | tee -a "$ROWS" "$RAW" >&2
  if ! grep -q '^RESULT' "$WORK/grpc.out"; then
    log "GrpcLoadDriver gave no result:"
    tail -20 "$WORK/grpc.out" >&2
  fi
}

# ---------------------------------------------------------------------------------------------- set-up
install_tools() {
  local missing=()
  command -v wrk > /dev/null || missing+=(wrk)
  command -v nginx > /dev/null || [[ -x /usr/sbin/nginx ]] || missing+=(nginx-light)
  if ((${#missing[@]})); then
    log "installing ${missing[*]} with apt-get"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" > /dev/null
  fi
}

# clone (once) and build (once) a peer: name git commit
peer_source() {
  local name=$1 git=$2 commit=$3
  mkdir -p "$CACHE"
  if [[ ! -d "$CACHE/$name/.git" ]]; then
    log "cloning $name from $git"
    git clone -q "$git" "$CACHE/$name"
  fi
  if [[ "$(git -C "$CACHE/$name" rev-parse HEAD)" != "$(git -C "$CACHE/$name" rev-parse "$commit^{commit}")" ]]; then
    git -C "$CACHE/$name" checkout -q "$commit"
  fi
}

build_peers() {
  if [[ " $SYSTEMS " == *" leaf "* ]]; then
    peer_source leaf "$LEAF_GIT" "$LEAF_COMMIT"
    if [[ ! -f "$CACHE/leaf/leaf-server/target/leaf.jar" ]]; then
      log "building Leaf ($LEAF_COMMIT) with Maven"
      (cd "$CACHE/leaf" && mvn -B -q package -Dmaven.test.skip=true)
    fi
    if [[ ! -d "$CACHE/leaf-exploded/BOOT-INF" || "$CACHE/leaf/leaf-server/target/leaf.jar" -nt "$CACHE/leaf-exploded" ]]; then
      rm -rf "$CACHE/leaf-exploded"
      mkdir -p "$CACHE/leaf-exploded"
      (cd "$CACHE/leaf-exploded" && unzip -q "$CACHE/leaf/leaf-server/target/leaf.jar")
    fi
  fi
  if [[ " $SYSTEMS " == *" tinyid "* ]]; then
    peer_source tinyid "$TINYID_GIT" "$TINYID_COMMIT"
    if [[ ! -f "$CACHE/tinyid/tinyid-server/target/tinyid-server-0.1.0-SNAPSHOT.jar" ]]; then
      log "building tinyid ($TINYID_COMMIT) with Maven"
      (cd "$CACHE/tinyid" && mvn -B -q package -Dmaven.test.skip=true)
    fi
  fi
}

create_databases() {
  DBS_CREATED=1
  if [[ " $SYSTEMS " == *" leaf "* ]]; then
    mysql_ -e "DROP DATABASE IF EXISTS \`$LEAF_DB\`; CREATE DATABASE \`$LEAF_DB\`"
    mysql_ "$LEAF_DB" < "$CACHE/leaf/scripts/leaf_alloc.sql"
    mysql_ "$LEAF_DB" -e "INSERT INTO leaf_alloc(biz_tag, max_id, step, description)
      VALUES ('bench', 1, $LEAF_STEP, 'gene-id side-by-side')"
  fi
  if [[ " $SYSTEMS " == *" tinyid "* ]]; then
    mysql_ -e "DROP DATABASE IF EXISTS \`$TINYID_DB\`; CREATE DATABASE \`$TINYID_DB\`"
    mysql_ "$TINYID_DB" < "$CACHE/tinyid/tinyid-server/db.sql"
  fi
}

# ---------------------------------------------------------------------------------------------- the systems
run_nginx() {
  local port dir pid workers
  port=$(free_port)
  dir=$WORK/nginx
  mkdir -p "$dir/logs" "$dir/tmp"
  cat > "$dir/nginx.conf" <<EOF
worker_processes auto;
daemon off;
pid $dir/nginx.pid;
error_log $dir/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $dir/tmp/body;
  proxy_temp_path $dir/tmp/proxy;
  fastcgi_temp_path $dir/tmp/fastcgi;
  uwsgi_temp_path $dir/tmp/uwsgi;
  scgi_temp_path $dir/tmp/scgi;
  keepalive_requests 100000000;
  keepalive_timeout 300s;
  server {
    listen 127.0.0.1:$port;
    location / {
      default_type "application/json; charset=utf-8";
      return 200 '{"ids":["252255179015979025"]}';
    }
  }
}
EOF
  /usr/sbin/nginx -p "$dir" -c "$dir/nginx.conf" > "$dir/logs/stdout.log" 2>&1 &
  pid=$!
  PIDS+=("$pid")
  wait_http "http://127.0.0.1:$port/" 'ids' "nginx $(/usr/sbin/nginx -v 2>&1 | sed 's/.*: //')" "$pid"
  workers=$(pgrep -P "$pid" | tr '\n' ' ')
  # shellcheck disable=SC2086 # the worker pids are a list
  http_rows nginx "fixed body (the HTTP ceiling)" 1 "http://127.0.0.1:$port/" "$pid" $workers
  stop_all
}

run_gene_id() {
  local http grpc pid
  http=$(free_port)
  grpc=$(free_port)
  # shellcheck disable=SC2086 # JVM_OPTS is a list of options
  java $JVM_OPTS -jar "$JAR" --http-port "$http" --grpc-port "$grpc" --data-dir "$WORK/gene-id-data" \
    --set segment-keys=bench > "$WORK/gene-id.log" 2>&1 &
  pid=$!
  PIDS+=("$pid")
  wait_http "http://127.0.0.1:$http/health/ready" UP "gene-id-server ($(git rev-parse --short HEAD))" "$pid"
  wait_http "http://127.0.0.1:$http/v1/segments/bench/ids" ids "gene-id segment key bench" "$pid"
  local url=http://127.0.0.1:$http
  http_rows gene-id "single id, /v1/ids" 1 "$url/v1/ids" "$pid"
  http_rows gene-id "segment id, /v1/segments/bench/ids" 1 "$url/v1/segments/bench/ids" "$pid"
  http_rows gene-id "batch of 100, /v1/ids?count=100" 100 "$url/v1/ids?count=100" "$pid"
  grpc_rows "single id, NextIds" ids 1 "$grpc" "$pid"
  grpc_rows "batch of 100, NextIds count=100" ids 100 "$grpc" "$pid"
  head -3 "$WORK/gene-id.log" >> "$RAW"
  stop_all
}

run_leaf() {
  local http zk zkpid pid
  http=$(free_port)
  zk=$(free_port)
  mkdir -p "$WORK/zk/data" "$WORK/leaf-conf" "$WORK/leaf-tmp"
  printf 'tickTime=2000\ndataDir=%s\nclientPort=%s\nclientPortAddress=127.0.0.1\n' "$WORK/zk/data" "$zk" \
    > "$WORK/zk/zoo.cfg"
  # ZooKeeper 3.4.6 (what Leaf's Curator 2.6.0 brings) from Leaf's own class path, for Leaf's snowflake worker id
  java -Xms"$HEAP" -Xmx"$HEAP" -Dzookeeper.jmx.log4j.disable=true -cp "$CACHE/leaf-exploded/BOOT-INF/lib/*" \
    org.apache.zookeeper.server.ZooKeeperServerMain "$WORK/zk/zoo.cfg" > "$WORK/zk/zk.log" 2>&1 &
  zkpid=$!
  PIDS+=("$zkpid")
  for _ in $(seq 100); do
    [[ "$( (exec 3<>"/dev/tcp/127.0.0.1/$zk" && echo ruok >&3 && timeout 2 cat <&3) 2>/dev/null || true)" == imok ]] && break
    sleep 0.3
  done
  cat > "$WORK/leaf-conf/leaf.properties" <<EOF
leaf.name=gene-id-side-by-side
leaf.segment.enable=true
leaf.jdbc.url=jdbc:mysql://$DB_HOST:$DB_PORT/$LEAF_DB?useSSL=false&useUnicode=true&characterEncoding=utf8
leaf.jdbc.username=$DB_USER
leaf.jdbc.password=
leaf.snowflake.enable=true
leaf.snowflake.zk.address=127.0.0.1:$zk
leaf.snowflake.port=$http
EOF
  # shellcheck disable=SC2086 # JVM_OPTS is a list of options
  java $JVM_OPTS --add-opens java.base/java.lang=ALL-UNNAMED -Djava.io.tmpdir="$WORK/leaf-tmp" \
    -cp "$WORK/leaf-conf:$CACHE/leaf-exploded/BOOT-INF/classes:$CACHE/leaf-exploded/BOOT-INF/lib/*" \
    com.sankuai.inf.leaf.server.LeafServerApplication --server.port="$http" --server.address=127.0.0.1 \
    > "$WORK/leaf.log" 2>&1 &
  pid=$!
  PIDS+=("$pid")
  local url=http://127.0.0.1:$http
  wait_http "$url/api/segment/get/bench" '^[0-9]+$' "Leaf $LEAF_COMMIT segment" "$pid"
  wait_http "$url/api/snowflake/get/bench" '^[0-9]+$' "Leaf snowflake" "$pid"
  http_rows Leaf "segment id, /api/segment/get/bench" 1 "$url/api/segment/get/bench" "$pid"
  http_rows Leaf "snowflake id, /api/snowflake/get/bench" 1 "$url/api/snowflake/get/bench" "$pid"
  stop_all
}

tinyid_max_id() {
  mysql_ -N "$TINYID_DB" -e "SELECT max_id FROM tiny_id_info WHERE biz_type = 'test'"
}

run_tinyid() {
  local http pid level=WARN
  http=$(free_port)
  [[ "$TINYID_REQUEST_LOG" == 1 ]] && level=INFO
  mkdir -p "$WORK/tinyid"
  # tinyid writes ./logs/: run it in the work folder
  # shellcheck disable=SC2086 # JVM_OPTS is a list of options
  (cd "$WORK/tinyid" && exec java $JVM_OPTS --add-opens java.base/java.lang=ALL-UNNAMED -Dserver.port="$http" \
    -Dserver.address=127.0.0.1 \
    "-Ddatasource.tinyid.primary.url=jdbc:mysql://$DB_HOST:$DB_PORT/$TINYID_DB?useSSL=false&autoReconnect=true&useUnicode=true&characterEncoding=UTF-8" \
    -Ddatasource.tinyid.primary.username="$DB_USER" -Ddatasource.tinyid.primary.password= \
    -Dlogging.level.com.xiaoju.uemc.tinyid="$level" \
    -jar "$CACHE/tinyid/tinyid-server/target/tinyid-server-0.1.0-SNAPSHOT.jar" > "$WORK/tinyid.log" 2>&1) &
  pid=$!
  PIDS+=("$pid")
  local base="http://127.0.0.1:$http/tinyid/id/nextIdSimple?bizType=test&token=$TINYID_TOKEN"
  wait_http "$base" '^[0-9]+$' "tinyid $TINYID_COMMIT nextIdSimple" "$pid"
  local before after
  before=$(tinyid_max_id)
  http_rows tinyid "segment id, nextIdSimple" 1 "$base" "$pid"
  http_rows tinyid "batch of 100, nextIdSimple&batchSize=100" 100 "$base&batchSize=100" "$pid"
  after=$(tinyid_max_id)
  # nextIdSimple answers "" with HTTP 200 on any error: the ids it handed out must have come from its segments
  log "tinyid max_id advanced by $((after - before)) during the measured points (step 100000; it answers \"\" with 200 on errors, so this is the check that its answers held ids)"
  echo "$((after - before))" > "$WORK/tinyid-advance"
  stop_all
}

# ---------------------------------------------------------------------------------------------- the report
report() {
  local commit
  commit=$(git rev-parse --short HEAD)
  {
    echo "# gene-id-server side by side: nginx, gene-id, Leaf, tinyid"
    echo
    echo "Written by \`gene-id-benchmarks/server/side-by-side.sh\` (see docs/benchmarks.md, \"Server, side by side\");"
    echo "raw wrk and driver output in \`$(basename "$RAW")\`."
    echo
    echo "| | |"
    echo "|---|---|"
    echo "| date (UTC) | $(date -u +%FT%TZ) |"
    echo "| machine | $CPUS cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/Mem:/ {print $2}') GB; load client and servers on this one machine |"
    echo "| JVM | $(java -version 2>&1 | head -1), every JVM \`-Xms$HEAP -Xmx$HEAP ${EXTRA_JVM_OPTS:-}\` (default GC) |"
    echo "| gene-id | commit $commit, \`$JAR\`, embedded defaults (static worker id, segments in H2), \`segment-keys=bench\` |"
    echo "| Leaf | Meituan-Dianping/Leaf $LEAF_COMMIT, Spring Boot 1.5 / Tomcat 8.5, segment on MariaDB (step $LEAF_STEP, adaptive), snowflake with ZooKeeper 3.4.6 |"
    echo "| tinyid | didi/tinyid $TINYID_COMMIT, Spring Boot 1.5 / Tomcat 8.5, segment on MariaDB (db.sql's \`test\`, step 100000), per-request log $([[ "$TINYID_REQUEST_LOG" == 1 ]] && echo on || echo off) |"
    echo "| nginx | $(/usr/sbin/nginx -v 2>&1 | sed 's/.*: //'), worker_processes auto, access log off, \`return 200\` of a 31-byte JSON body |"
    echo "| load | $(wrk --version 2>&1 | head -1 | cut -d' ' -f1-2) -t$WRK_THREADS (-t c below 2) -c c -d${SECS}s --latency after a ${WARMUP} s warm-up at c = $MAX_C; gRPC: GrpcLoadDriver, c calls outstanding over min(c, 4) connections |"
    echo "| MariaDB | $(mysql_ -N -e 'SELECT VERSION()' 2>/dev/null || echo '?') |"
    echo
    echo "*server CPU* is the server process's CPU time (utime + stime) per request; *client cores* the load"
    echo "client's (wrk or the driver) CPU over the point; *load* the 1-minute load average just before the point;"
    echo "*other cores* what every other process on the machine used during the point (busy CPU from /proc/stat"
    echo "minus server and client). A point with other cores above 0.3 or a load above $CPUS was measured on a busy"
    echo "machine and is marked **busy**."
    echo
    echo "| system | protocol | what | c | requests/s | ids/s | vs nginx (req/s) | p50 ms | p99 ms | p99.9 ms | server CPU µs/req | client cores | load | other cores | errors |"
    echo "|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
    awk -F'\t' -v cpus="$CPUS" '
      function commas(n,   s, out) { s = sprintf("%.0f", n); out = ""
        while (length(s) > 3) { out = "," substr(s, length(s) - 2) out; s = substr(s, 1, length(s) - 3) }
        return s out }
      { rows[NR] = $0; if ($1 == "nginx") ceiling[$4] = $5 }
      END {
        for (i = 1; i <= NR; i++) {
          split(rows[i], f, "\t")
          ratio = (f[1] != "nginx" && ceiling[f[4]] > 0 && f[6] == f[5]) ? sprintf("%.2f", f[5] / ceiling[f[4]]) : ""
          busy = (f[13] > 0.3 || f[12] > cpus) ? " **busy**" : ""
          printf "| %s | %s | %s | %d | %s | %s | %s | %.2f | %.2f | %.2f | %.1f | %.2f | %.2f%s | %.2f | %d |\n",
            f[1], f[2], f[3], f[4], commas(f[5]), commas(f[6]), ratio, f[7], f[8], f[9], f[10], f[11], f[12], busy,
            f[13], f[14]
        }
      }' "$ROWS"
    if [[ -f "$WORK/tinyid-advance" ]]; then
      echo
      echo "tinyid answers \`\"\"\` with HTTP 200 on any error, so wrk cannot count its errors: its \`max_id\` in MariaDB"
      echo "advanced by $(cat "$WORK/tinyid-advance") over its measured points (segments of 100,000 claimed ahead)."
    fi
    echo
    echo "Goals (issue #40):"
    echo
    if awk -F'\t' -v cpus="$CPUS" '$13 > 0.3 || $12 > cpus { busy = 1 } END { exit !busy }' "$ROWS"; then
      echo "Points were measured on a busy machine: there the scheduler shares the cores per thread, so rates between"
      echo "systems measure their shares of the CPU as much as their code; the CPU per request (server CPU column)"
      echo "varies less with the load, and the lines marked *CPU* compare that."
      echo
    fi
    awk -F'\t' '
      $1 == "nginx" { ceiling[$4] = $5; ncpu[$4] = $10 }
      $1 == "gene-id" && $2 == "HTTP" && $3 ~ /^single/ { single[$4] = $5; p999[$4] = $9; scpu[$4] = $10 }
      $1 == "gene-id" && $2 == "HTTP" && $3 ~ /^batch/ { hbatch[$4] = $6; hbcpu[$4] = $10 }
      $1 == "gene-id" && $2 == "gRPC" && $3 ~ /^single/ { gsingle[$4] = $6; gscpu[$4] = $10 }
      $1 == "gene-id" && $2 == "gRPC" && $3 ~ /^batch/ { gbatch[$4] = $6; gbcpu[$4] = $10 }
      END {
        for (c in single) cs[++n] = c + 0
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (cs[j] < cs[i]) { t = cs[i]; cs[i] = cs[j]; cs[j] = t }
        line = "- single ids at >= 0.9 of nginx:"
        for (i = 1; i <= n; i++) { c = cs[i]; r = ceiling[c] > 0 ? single[c] / ceiling[c] : 0
          line = line sprintf(" c=%d %.2f (%s);", c, r, r >= 0.9 ? "met" : "missed") }
        print line
        if (16 in p999) printf "- p99.9 at c = 16 under 5 ms: %.2f ms (%s)\n", p999[16], p999[16] < 5 ? "met" : "missed"
        line = "- gRPC ids/s >= HTTP ids/s, single ids:"
        for (i = 1; i <= n; i++) { c = cs[i]; r = single[c] > 0 ? gsingle[c] / single[c] : 0
          line = line sprintf(" c=%d %.2f (%s);", c, r, r >= 1 ? "met" : "missed") }
        print line
        line = "- gRPC ids/s >= HTTP ids/s, batches of 100:"
        for (i = 1; i <= n; i++) { c = cs[i]; r = hbatch[c] > 0 ? gbatch[c] / hbatch[c] : 0
          line = line sprintf(" c=%d %.2f (%s);", c, r, r >= 1 ? "met" : "missed") }
        print line
        line = "- *CPU*: server CPU per request of nginx / of gene-id, single ids (the rate at equal CPU):"
        for (i = 1; i <= n; i++) { c = cs[i]; line = line sprintf(" c=%d %.2f;", c, scpu[c] > 0 ? ncpu[c] / scpu[c] : 0) }
        print line
        line = "- *CPU*: server CPU per id, HTTP / gRPC (above 1: gRPC costs the server less per id), single ids:"
        for (i = 1; i <= n; i++) { c = cs[i]; line = line sprintf(" c=%d %.2f;", c, gscpu[c] > 0 ? scpu[c] / gscpu[c] : 0) }
        line = line " batches of 100:"
        for (i = 1; i <= n; i++) { c = cs[i]; line = line sprintf(" c=%d %.2f;", c, gbcpu[c] > 0 ? hbcpu[c] / gbcpu[c] : 0) }
        print line
      }' "$ROWS"
    echo
    echo "Command: \`SECS=$SECS WARMUP=$WARMUP CONCURRENCY=\"$CONCURRENCY\" HEAP=$HEAP gene-id-benchmarks/server/side-by-side.sh\`"
  } > "$OUT"
  { echo "== rows (tab-separated, the table's columns)"; cat "$ROWS"; } >> "$RAW"
  log "wrote $OUT"
}

# ---------------------------------------------------------------------------------------------- main
install_tools
if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  log "building gene-id-server and gene-id-benchmarks"
  mvn -B -q -pl gene-id-benchmarks -am package -DskipTests
fi
build_peers
create_databases
log "load average at start: $(cut -d' ' -f1-3 /proc/loadavg); $CPUS cores"
for s in $SYSTEMS; do
  case $s in
    nginx) run_nginx ;;
    gene-id) run_gene_id ;;
    leaf) run_leaf ;;
    tinyid) run_tinyid ;;
    *) log "unknown system $s" ;;
  esac
done
log "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
report
cat "$OUT"
