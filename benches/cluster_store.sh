#!/usr/bin/env bash
# `doppel cluster scan --index` against `doppel scan --index` on one
# machine (BENCHMARKS.md, "cluster scan into an index"), interleaved: a
# fresh index of FOLDER made by `scan`, by `cluster scan --local` and by a
# scheduler with one executor (2 tasks) on 127.0.0.1; then each run again
# with nothing changed (what an incremental run costs when nothing is
# new). Prints wall, CPU and peak memory of each run, the executor's
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

# Wait until something listens on 127.0.0.1:PORT.
listening() {
    for _ in $(seq 1 600); do
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        sleep 0.1
    done
    echo "nothing listens on $1" >&2
    return 1
}

scheduler=50400
"$bin" cluster scheduler --bind "127.0.0.1:$scheduler" >/dev/null 2>&1 &
servers+=($!)
listening "$scheduler"
"$bin" cluster executor --scheduler "127.0.0.1:$scheduler" --bind 127.0.0.1:50402 \
    --grpc-port 50403 --tasks 2 --allow "$folder" >/dev/null 2>&1 &
servers+=($!)
listening 50402
sleep 2 # the executor registers on its first heartbeat
for run in fresh again; do
    timed "scan-$run" scan "$folder" --index "$out/scan.sqlite" --format json
    timed "local-$run" cluster scan "$folder" --local --index "$out/local.sqlite" --format json
    timed "executor-$run" cluster scan "$folder" --scheduler "127.0.0.1:$scheduler" \
        --partitions 4 --index "$out/executor.sqlite" --format json
done
echo "executor peak: $(awk '/VmHWM/ {printf "%.0f MB", $2 / 1024}' "/proc/${servers[1]}/status")"
stop_servers
for report in "$out"/*.json; do
    if cmp -s "$out/scan-fresh.json" "$report"; then
        echo "$(basename "$report" .json): the same bytes as scan-fresh"
    else
        echo "$(basename "$report" .json): DIFFERS from scan-fresh"
    fi
done
