#!/usr/bin/env bash
# The team store's ingest against a SQLite scan (BENCHMARKS.md, "Team store
# ingest"): two `doppel ingest` processes started at once into a fresh
# PostgreSQL database, then `scan --store` and a SQLite `scan --index` of
# the same folder, each under /usr/bin/time -v; prints wall and CPU times,
# peak memory, the server's CPU (its exited backends') and whether the two
# scans' JSON reports are byte-identical.
#
#   PGSOCKET=/tmp/pg PGPORT=54329 benches/team_ingest.sh target/scale-corpus
#
# Needs a running server on that socket folder and port whose `postgres`
# role may create databases without a password (a test cluster), and
# `target/release/doppel` (or BIN).
set -euo pipefail
DIR=${1:?usage: team_ingest.sh FOLDER}
BIN=${BIN:-$(dirname "$0")/../target/release/doppel}
PGSOCKET=${PGSOCKET:-/tmp/pgtest}
PGPORT=${PGPORT:-54329}
DB=${DB:-bench$(date +%s)}
OUT=${OUT:-$(mktemp -d)}
psql -h "$PGSOCKET" -p "$PGPORT" -U postgres -qc "CREATE DATABASE $DB"
URL="postgres://postgres@${PGSOCKET//\//%2F}:$PGPORT/$DB"
T=/usr/bin/time
postmaster=$(head -1 "$(psql -h "$PGSOCKET" -p "$PGPORT" -U postgres -Atc 'SHOW data_directory')/postmaster.pid")
server_cpu() { awk '{print ($16 + $17) / 100}' "/proc/$postmaster/stat"; }
uptime >"$OUT/load-before"
before=$(server_cpu)
start=$(date +%s.%N)
$T -v "$BIN" ingest --format json --store "$URL" "$DIR" >"$OUT/a.json" 2>"$OUT/a.time" &
a=$!
$T -v "$BIN" ingest --format json --store "$URL" "$DIR" >"$OUT/b.json" 2>"$OUT/b.time" &
b=$!
wait $a
wait $b
end=$(date +%s.%N)
sleep 1
echo "ingest wall $(echo "$end - $start" | bc) s, server CPU $(echo "$(server_cpu) - $before" | bc) s"
$T -v "$BIN" scan --format json --store "$URL" "$DIR" >"$OUT/pg.json" 2>"$OUT/pgscan.time"
$T -v "$BIN" scan --format json --index "$OUT/index.sqlite" "$DIR" >"$OUT/sqlite.json" 2>"$OUT/sqlite.time"
uptime >"$OUT/load-after"
if cmp -s "$OUT/pg.json" "$OUT/sqlite.json"; then echo "same JSON"; else echo "JSON DIFFERS"; fi
for run in a b pgscan sqlite; do
    field() { grep "$1" "$OUT/$run.time" | awk '{print $NF}'; }
    echo "$run: wall $(field 'Elapsed (wall') user $(field 'User time') sys $(field 'System time') peak_kb $(field 'Maximum resident')"
done
grep -h -A3 '"seconds"' "$OUT/a.json" "$OUT/b.json" | grep -v null
echo "outputs in $OUT (load: $(cat "$OUT/load-before"))"
