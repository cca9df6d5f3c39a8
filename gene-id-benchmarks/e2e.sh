#!/usr/bin/env bash
# End to end through ShardingSphere-JDBC 5.5.2: orders with 3 items each, on MariaDB, PostgreSQL or H2, for the rule
# sets usual (built-in SNOWFLAKE + MOD, items on order_id), usual-vibration (the same with SNOWFLAKE's
# max-vibration-offset = shards - 1), gene (GENE_SNOWFLAKE + GENE_MOD in tables, items on id,order_id at two levels),
# gene-auto (GENE_SNOWFLAKE + GENE_MOD_AUTO in autoTables, items on id,order_id at one level) and gene-standard (gene
# ids, items on order_id alone); 2x2 and 2x4 shards; 1 and 2 client threads.
#
#   gene-id-benchmarks/e2e.sh --db mariadb            # full: 5 repetitions, ~11 minutes on 2 cores; quiet machine
#   gene-id-benchmarks/e2e.sh --db postgresql --quick # 3 short repetitions (~2-3 minutes): a first look
#   gene-id-benchmarks/e2e.sh --db h2 --quick         # embedded, no server
#
# Other options: --repetitions N, --rules usual,gene,... , --out FILE. Servers: MariaDB 127.0.0.1:3306 (root, no
# password) and PostgreSQL 127.0.0.1:5432 (user postgres, trust), each with an admin database `test`; the run creates
# its own databases gid_e2e_<run>_<shape>_<n> and drops them at the end.
#
# Writes gene-id-benchmarks/results/e2e-<db>.md (e2e-<db>-quick.md with --quick) and folds the results files into
# gene-id-benchmarks/BENCHMARKS.md between its e2e-results markers (run.sh keeps that part when it regenerates the
# rest). Set SKIP_BUILD=1 to reuse the last build.
set -euo pipefail
cd "$(dirname "$0")/.."
MODULE=gene-id-benchmarks

if [ "${SKIP_BUILD:-0}" != 1 ]; then
  echo "[e2e] building $MODULE"
  mvn -B -q -pl "$MODULE" -am package -DskipTests
fi
CP="$MODULE/target/classes:$(cat "$MODULE/target/benchmark-classpath.txt")"
echo "[e2e] load average before the run: $(cut -d' ' -f1-3 /proc/loadavg)"
# one heap size for every run; E2E_JAVA_OPTS adds e.g. a profiler
# shellcheck disable=SC2086 # E2E_JAVA_OPTS is a list of options
java -Xms512m -Xmx512m ${E2E_JAVA_OPTS:-} -cp "$CP" io.geneid.benchmarks.e2e.EndToEndBenchmark "$@"
java -cp "$CP" io.geneid.benchmarks.e2e.E2eReport "$MODULE/results" "$MODULE/BENCHMARKS.md"
echo "[e2e] updated $MODULE/BENCHMARKS.md"
