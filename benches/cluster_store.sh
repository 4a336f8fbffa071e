#!/usr/bin/env bash
# `doppel cluster scan --index` against `doppel scan --index` on one
# machine (BENCHMARKS.md, "cluster scan into an index"), interleaved: a
# fresh index of FOLDER made by `scan`, by `cluster scan --local`, by a
# scheduler with one executor (2 tasks) on 127.0.0.1, and by one with two
# executors held to a core each (taskset: as two one-core machines, where
# a chunk read by one executor leaves the other idle); then each run
# again with nothing changed (what an incremental run costs when nothing
# is new). Prints wall, CPU and peak memory of each run, the executor's
# peak, and whether each JSON report is byte-identical to the first
# `scan`'s. A PostgreSQL store (`--store`) takes the same path; an index
# file keeps the benchmark free of a server.
#
# usage: benches/cluster_store.sh BINARY FOLDER
#   BINARY  a doppel built with --features cluster (release)
#   FOLDER  the corpus, e.g. benches/make_scale_corpus.py's
set -euo pipefail
bin=$(realpath "$1")
folder=$(realpath "$2")
out=$(mktemp -d)
# shellcheck source=benches/cluster_lib.sh
source "$(dirname "$0")/cluster_lib.sh"

scheduler=50400
"$bin" cluster scheduler --bind "127.0.0.1:$scheduler" >/dev/null 2>&1 &
servers+=($!)
listening "$scheduler"
"$bin" cluster executor --scheduler "127.0.0.1:$scheduler" --bind 127.0.0.1:50402 \
    --grpc-port 50403 --tasks 2 --allow "$folder" >/dev/null 2>&1 &
servers+=($!)
listening 50402
pinned=50410
"$bin" cluster scheduler --bind "127.0.0.1:$pinned" >/dev/null 2>&1 &
servers+=($!)
listening "$pinned"
for core in 0 1; do
    taskset -c "$core" "$bin" cluster executor --scheduler "127.0.0.1:$pinned" \
        --bind "127.0.0.1:$((50412 + 2 * core))" --grpc-port "$((50413 + 2 * core))" \
        --tasks 1 --allow "$folder" >/dev/null 2>&1 &
    servers+=($!)
    listening "$((50412 + 2 * core))"
done
sleep 2 # the executors register on their first heartbeat
for run in fresh again; do
    timed "scan-$run" scan "$folder" --index "$out/scan.sqlite" --format json
    timed "local-$run" cluster scan "$folder" --local --index "$out/local.sqlite" --format json
    timed "executor-$run" cluster scan "$folder" --scheduler "127.0.0.1:$scheduler" \
        --partitions 4 --index "$out/executor.sqlite" --format json
    timed "pinned-$run" cluster scan "$folder" --scheduler "127.0.0.1:$pinned" \
        --partitions 2 --index "$out/pinned.sqlite" --format json
done
echo "executor peak: $(peak "${servers[1]}"); pinned: $(peak "${servers[3]}"), $(peak "${servers[4]}")"
stop_servers
same_bytes scan-fresh
