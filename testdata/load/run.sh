#!/usr/bin/env bash
# End-to-end load: builds fincom, seeds a fresh data directory (cmd/loadseed),
# serves it on loopback and drives each hot route with wrk (32
# connections), printing requests/s and p50/p99 latency per route, then
# the memory and start-up figures. Each figure that has a baseline is
# printed beside it, measured in the same run, as a ratio: a year's
# inventory report beside a month's listing, each listing through the
# handler beside a bare query of the same rows (baselines.sh; NOBENCH=1
# skips it) and, with POCKETBASE=1, search and inserts beside PocketBase
# doing the same work (pocketbase.sh). The figures are in the README
# ("Performance").
#
#   testdata/load/run.sh            # full sizes, 10 s per route
#   DURATION=5s SMALL=1 testdata/load/run.sh
#   KEEP=/tmp/fincom-load testdata/load/run.sh   # seed once, reuse after
#   POCKETBASE=1 testdata/load/run.sh            # and beside PocketBase
#
# Needs wrk (apt-get install wrk). Runs from any directory.
set -Eeuo pipefail
cd "$(dirname "$0")/../.."
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install wrk" >&2; exit 1; }

DURATION=${DURATION:-10s}
CONNS=${CONNS:-32}
PORT=${PORT:-18080}
if [ -n "${KEEP:-}" ]; then
  WORK=$KEEP
  mkdir -p "$WORK"
  trap 'kill $(jobs -p) 2>/dev/null || true' EXIT
else
  WORK=$(mktemp -d)
  trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$WORK"' EXIT
fi
URL=http://127.0.0.1:$PORT/api/v1
LOAD=testdata/load
# A step that fails shows the end of the server's log before the data goes.
trap 'echo "# failed at line $LINENO; the server log ends:" >&2; tail -n 20 "$WORK/serve.log" >&2 || true' ERR

if [ -n "${SMALL:-}" ]; then
  SIZES=(-contacts 2000 -months 12 -entries 300 -orders 100 -movements 20000 -domains 100)
else
  SIZES=(-contacts 10000 -months 100 -entries 1000 -orders 500 -movements 200000 -domains 1000)
fi

echo "# $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/Mem/{print $2}') GiB, $(go version | cut -d' ' -f3)"
CGO_ENABLED=0 go build -o "$WORK/fincom" .
if [ ! -s "$WORK/tokens.env" ]; then
  echo "# seeding: ${SIZES[*]}"
  go run ./cmd/loadseed -data "$WORK/data" "${SIZES[@]}" > "$WORK/tokens.env"
fi
# shellcheck disable=SC1091
source "$WORK/tokens.env"
export ACCESS UNIT

# serve DURABILITY: starts fincom and waits until it answers; READY is the
# milliseconds that took, PID the server's.
serve() {
  local t0 t1
  t0=$(date +%s%N)
  "$WORK/fincom" serve --data "$WORK/data" --addr "127.0.0.1:$PORT" --durability "$1" ${PROFILE:+--cpuprofile "$PROFILE"} >"$WORK/serve.log" 2>&1 &
  PID=$!
  until curl -sf "$URL/health" >/dev/null 2>&1; do sleep 0.002; done
  t1=$(date +%s%N)
  READY=$(( (t1 - t0) / 1000000 ))
}

stop() { kill "$PID"; wait "$PID" 2>/dev/null || true; }

rss() { awk '/VmRSS/{printf "%d MB", $2/1024}' "/proc/$PID/status"; }
peak() { awk '/VmHWM/{printf "%d MB", $2/1024}' "/proc/$PID/status"; }

auth="\"access_token\":\"$ACCESS\",\"unit_token\":\"$UNIT\""
run() { # ROUTE BODY [SCRIPT]; RATE and P50 are the run's requests/s and median (ms)
  local line
  line=$(ROUTE=${ROUTE:-$1} BODY=$2 wrk -t"$(( CONNS < 2 ? 1 : 2 ))" -c"$CONNS" -d"$DURATION" --timeout 10s -s "$LOAD/${3:-post.lua}" "$URL/$1" | tail -n1)
  echo "$line   rss $(rss)"
  RATE=$(awk '{for (i = 2; i <= NF; i++) if ($i == "req/s") print $(i-1)}' <<<"$line")
  P50=$(awk '{for (i = 2; i <= NF; i++) if ($i == "p50") print $(i+1)}' <<<"$line")
}

serve full
echo "# serve ready in ${READY} ms with $(ls "$WORK"/data/*.db | wc -l) domain files"
# At start the jobs catch up on every domain (a few seconds for 1,000):
# measured apart, below, not mixed into the routes' figures.
sleep 8
printf '%-34s %15s   %10s   %10s\n' route throughput p50 p99
run get_contacts "{$auth,\"search\":\"grupo-7\"}"
run transactions "{$auth,\"from_date\":\"2026-11-01\",\"to_date\":\"2026-11-30\"}"
run list_sales_orders "{$auth,\"date_from\":\"2026-11-01\",\"date_to\":\"2026-11-30\"}"
# A month's listing alone (one connection): its own latency, not a queue's.
CONNS=1 ROUTE="transactions (1 connection)" run transactions "{$auth,\"from_date\":\"2026-11-01\",\"to_date\":\"2026-11-30\"}"
CONNS=1 ROUTE="list_sales_orders (1 connection)" run list_sales_orders "{$auth,\"date_from\":\"2026-11-01\",\"date_to\":\"2026-11-30\"}"
month=$P50
run get_inventory_reports "{$auth,\"year\":2026,\"type_data\":\"quantity\"}"
CONNS=1 ROUTE="get_inventory_reports (1 connection)" run get_inventory_reports "{$auth,\"year\":2026,\"type_data\":\"quantity\"}"
awk -v y="$P50" -v m="$month" 'BEGIN { printf "# a year'"'"'s inventory report (p50, one connection): %.2fx a month'"'"'s list_sales_orders\n", y / m }'
run insert_contact "" insert_contact.lua
echo "# one busy domain: resident $(rss), peak $(peak)"
stop

serve normal
# The start-up catch-up again (it compacts the search index the inserts
# above grew): measured apart, as for the first server.
sleep 8
ROUTE="insert_contact (normal)" run insert_contact "" insert_contact.lua
stop

if [ -f "$WORK/data/domains.tokens" ]; then
  serve full
  n=0
  while read -r access unit; do
    curl -sf "$URL/get_contacts" -d "{\"access_token\":\"$access\",\"unit_token\":\"$unit\"}" >/dev/null
    n=$((n + 1))
  done < "$WORK/data/domains.tokens"
  echo "# serve ready in ${READY} ms; after touching $n domains: resident $(rss), peak $(peak)"
  stop
fi

if [ -z "${NOBENCH:-}" ]; then
  echo "# beside bare queries of the same rows"
  "$LOAD/baselines.sh"
fi

if [ -n "${POCKETBASE:-}" ]; then
  echo "# beside PocketBase"
  DURATION=$DURATION CONNS=$CONNS "$LOAD/pocketbase.sh"
fi
