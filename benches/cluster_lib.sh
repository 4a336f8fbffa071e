# Helpers of the cluster benchmarks (benches/cluster.sh, cluster_store.sh),
# sourced with `bin` (the doppel binary) and `out` (a scratch folder) set:
# the servers started (stopped on exit), timed runs, waiting for a port.

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

# same_bytes FIRST: whether each report in $out is byte-identical to FIRST's.
same_bytes() {
    for report in "$out"/*.json; do
        if cmp -s "$out/$1.json" "$report"; then
            echo "$(basename "$report" .json): the same bytes as $1"
        else
            echo "$(basename "$report" .json): DIFFERS from $1"
        fi
    done
}
