#!/usr/bin/env bash
# `doppel cluster scan` against `doppel scan --no-index` on one machine,
# interleaved (BENCHMARKS.md, "A library past one machine"): for each
# round, scan --no-index, cluster scan --local, then a scheduler with one
# executor running 2 tasks, and a scheduler with 2 executors running 1
# task each, all on 127.0.0.1. Prints wall, CPU and peak memory of each
# run (the servers' peaks from /proc), and whether each JSON report is
# byte-identical to the first scan --no-index's.
#
# usage: benches/cluster.sh BINARY FOLDER [ROUNDS]
#   BINARY  a doppel built with --features cluster (release)
#   FOLDER  the corpus, e.g. benches/make_scale_corpus.py's
set -euo pipefail
bin=$(realpath "$1")
folder=$(realpath "$2")
rounds=${3:-2}
out=$(mktemp -d)
# shellcheck source=benches/cluster_lib.sh
source "$(dirname "$0")/cluster_lib.sh"

port=50300
for round in $(seq 1 "$rounds"); do
    timed "scan-$round" scan "$folder" --no-index --format json
    timed "local-$round" cluster scan "$folder" --local --format json
    for executors in 1 2; do
        scheduler=$port
        port=$((port + 10))
        "$bin" cluster scheduler --bind "127.0.0.1:$scheduler" >/dev/null 2>&1 &
        servers+=($!)
        listening "$scheduler"
        for i in $(seq 1 "$executors"); do
            flight=$((scheduler + 2 * i))
            "$bin" cluster executor --scheduler "127.0.0.1:$scheduler" \
                --bind "127.0.0.1:$flight" --grpc-port $((flight + 1)) \
                --tasks $((2 / executors)) --allow "$folder" >/dev/null 2>&1 &
            servers+=($!)
            listening "$flight"
        done
        sleep 2 # the executors register on their first heartbeat
        timed "executors$executors-$round" cluster scan "$folder" \
            --scheduler "127.0.0.1:$scheduler" --partitions 4 --format json
        echo "executors$executors-$round peaks: scheduler $(peak "${servers[0]}"), executors" \
            "$(for pid in "${servers[@]:1}"; do peak "$pid"; echo -n " "; done)"
        stop_servers
    done
done
same_bytes scan-1
