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
servers=()
stop_servers() {
    if [ ${#servers[@]} -gt 0 ]; then
        kill "${servers[@]}" 2>/dev/null || true
        wait "${servers[@]}" 2>/dev/null || true
    fi
    servers=()
}
trap 'stop_servers; rm -rf "$out"' EXIT

# timed LABEL ARGS...: one run of doppel, its report kept as LABEL.json.
timed() {
    local label=$1
    shift
    /usr/bin/time -f "$label wall %e s, user %U s, sys %S s, peak %M KB" \
        "$bin" "$@" >"$out/$label.json" 2>"$out/$label.err" ||
        { echo "$label FAILED"; tail -3 "$out/$label.err"; return 1; }
    tail -n 1 "$out/$label.err"
}

# A process's peak resident memory so far, in MB.
peak() { awk '/VmHWM/ {printf "%.0f MB", $2 / 1024}' "/proc/$1/status"; }

# Wait until something listens on 127.0.0.1:PORT.
listening() {
    for _ in $(seq 1 600); do
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        sleep 0.1
    done
    echo "nothing listens on $1" >&2
    return 1
}

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
for report in "$out"/*.json; do
    if cmp -s "$out/scan-1.json" "$report"; then
        echo "$(basename "$report" .json): the same bytes as scan-1"
    else
        echo "$(basename "$report" .json): DIFFERS from scan-1"
    fi
done
