#!/usr/bin/env bash
# Benchmark of gene-id-server (issue #32): wrk for HTTP, GrpcLoad (server test sources) for gRPC, against the
# runnable jar on loopback. Client and server share the machine: say so when you quote the figures.
#   gene-id-server/bench/run-server-bench.sh [seconds per run, default 15] [connections, default 64]
# Needs wrk (apt-get install -y wrk). Builds the jar first unless SKIP_BUILD=1.
set -euo pipefail
cd "$(dirname "$0")/../.."
SECS=${1:-15}
CONNS=${2:-64}
HTTP_PORT=${HTTP_PORT:-18080}
GRPC_PORT=${GRPC_PORT:-19090}
JAR=gene-id-server/target/gene-id-server.jar
if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  mvn -B -q -pl gene-id-server -am package -DskipTests
fi
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install -y wrk)"; exit 1; }
DATA=$(mktemp -d)
java -Xms512m -Xmx512m -XX:+UseParallelGC -jar "$JAR" --http-port "$HTTP_PORT" --grpc-port "$GRPC_PORT" \
  --data-dir "$DATA" --set segment-keys=bench --set io-threads=2 > "$DATA/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null; rm -rf "$DATA"' EXIT
for _ in $(seq 1 100); do
  curl -sf "http://127.0.0.1:$HTTP_PORT/health/ready" >/dev/null && break
  sleep 0.2
done
echo "# $(head -1 "$DATA/server.log")"
echo "# machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), java $(java -version 2>&1 | head -1)"
echo "# commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'); client and server on this one machine"
echo "# load before: $(uptime)"
URL=http://127.0.0.1:$HTTP_PORT
LUA=gene-id-server/bench/percentiles.lua
# warm-up (JIT): not measured
wrk -t2 -c"$CONNS" -d5s "$URL/v1/ids" >/dev/null
wrk -t2 -c"$CONNS" -d5s "$URL/v1/ids?count=100" >/dev/null
wrk -t2 -c"$CONNS" -d3s "$URL/v1/segments/bench/ids" >/dev/null
run() { # name path ids-per-request
  echo "HTTP $1 (wrk -t2 -c$CONNS -d${SECS}s $2)"
  IDS=$3 wrk -t2 -c"$CONNS" -d"${SECS}s" -s "$LUA" "$URL$2" | grep -E '^  (requests|latency)'
}
run "single id" "/v1/ids" 1
run "single id of a parent" "/v1/ids?parent=1234567890123" 1
run "batch of 100" "/v1/ids?count=100" 100
run "batch of 1000" "/v1/ids?count=1000" 1000
run "segment id, single" "/v1/segments/bench/ids" 1
run "segment ids, batch of 100" "/v1/segments/bench/ids?count=100" 100
echo "# load after HTTP: $(uptime)"
CP="$JAR:gene-id-server/target/test-classes"
for count in 1 100; do
  java -Xmx256m -cp "$CP" io.geneid.server.GrpcLoad 127.0.0.1 "$GRPC_PORT" "$CONNS" 4 "$SECS" "$count" 5
done
echo "# load after gRPC: $(uptime)"
