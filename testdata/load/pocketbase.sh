#!/usr/bin/env bash
# fincom beside PocketBase, in one run on this machine: both servers get
# the same 10,000 contacts through their APIs (50 named "… Grupo Alfa …"),
# then wrk (32 connections on loopback) drives, on each, the search that
# finds the 50 (fincom's get_contacts search; PocketBase's filtered list
# of 50 with skipTotal) and the insert of a contact (fincom with full
# durability, an fsync per answered write, its token checked; PocketBase
# with its own synchronous=NORMAL, as a superuser and anonymously, its
# cheapest create), then fincom's search again right after the inserts,
# and prints the ratios. PocketBase is its
# repository's example server (examples/base, default settings, dev mode
# off as in a production build), built from the Go module pinned in
# testdata/load/pocketbase. run.sh runs this with POCKETBASE=1.
#
#   testdata/load/pocketbase.sh
#   DURATION=5s testdata/load/pocketbase.sh
#
# Needs wrk (apt-get install wrk) and the Go module proxy (the first build).
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install wrk" >&2; exit 1; }

DURATION=${DURATION:-10s}
CONNS=${CONNS:-32}
FPORT=${FPORT:-18081}
PPORT=${PPORT:-18091}
WORK=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$WORK"' EXIT
LOAD=testdata/load
FURL=http://127.0.0.1:$FPORT/api/v1
PURL=http://127.0.0.1:$PPORT

echo "# $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/Mem/{print $2}') GiB, $(go version | cut -d' ' -f3), $(date -u +%Y-%m-%d)"
CGO_ENABLED=0 go build -o "$WORK/fincom" .
go build -o "$WORK/loadseed" ./cmd/loadseed
(cd "$LOAD/pocketbase" && CGO_ENABLED=0 go build -o "$WORK/pocketbase" github.com/pocketbase/pocketbase/examples/base)
echo "# PocketBase $(cd "$LOAD/pocketbase" && go list -m -f '{{.Version}}' github.com/pocketbase/pocketbase)"

# fincom: an empty domain (one unit, one contact "Alfa Comércio Ltda"),
# served with full durability.
"$WORK/loadseed" -data "$WORK/fincom-data" -contacts 0 -months 0 -movements 0 > "$WORK/tokens.env"
# shellcheck disable=SC1091
source "$WORK/tokens.env"
export ACCESS UNIT
"$WORK/fincom" serve --data "$WORK/fincom-data" --addr "127.0.0.1:$FPORT" --durability full >"$WORK/fincom.log" 2>&1 &
until curl -sf "$FURL/health" >/dev/null 2>&1; do sleep 0.05; done

# PocketBase: a superuser, and its own data directory.
"$WORK/pocketbase" superuser upsert bench@example.com bench-password-1 --dir "$WORK/pb-data" >/dev/null
"$WORK/pocketbase" serve --http "127.0.0.1:$PPORT" --dir "$WORK/pb-data" --dev=false >"$WORK/pb.log" 2>&1 &
until curl -sf "$PURL/api/health" >/dev/null 2>&1; do sleep 0.05; done

t0=$(date +%s)
"$WORK/loadseed" -api fincom -url "$FURL" -access "$ACCESS" -unit "$UNIT" -contacts 10000
"$WORK/loadseed" -api pocketbase -url "$PURL" -email bench@example.com -password bench-password-1 -contacts 10000 > "$WORK/pb.env"
# shellcheck disable=SC1091
source "$WORK/pb.env"
echo "# seeded both through their APIs in $(( $(date +%s) - t0 )) s"

# Both find the same 50 before anything is measured.
fbody="{\"access_token\":\"$ACCESS\",\"unit_token\":\"$UNIT\",\"search\":\"grupo alfa\"}"
nf=$(curl -sf "$FURL/get_contacts" -d "$fbody" | grep -o '"register"' | wc -l)
np=$(curl -sf -H "Authorization: $PBTOKEN" "$PBSEARCH" | grep -o '"register"' | wc -l)
[ "$nf" = 50 ] && [ "$np" = 50 ] || { echo "search finds $nf on fincom, $np on PocketBase; want 50" >&2; exit 1; }

# run NAME SCRIPT URL: one wrk line; RATE is its requests/s, P50 its
# median latency (ms).
run() {
  local line
  line=$(ROUTE=$1 wrk -t2 -c"$CONNS" -d"$DURATION" --timeout 10s -s "$LOAD/$2" "$3" | tail -n1)
  echo "$line"
  RATE=$(awk '{for (i = 2; i <= NF; i++) if ($i == "req/s") print $(i-1)}' <<<"$line")
  P50=$(awk '{for (i = 2; i <= NF; i++) if ($i == "p50") print $(i+1)}' <<<"$line")
}
printf '%-34s %15s   %10s   %10s\n' work throughput p50 p99
BODY=$fbody run "fincom search (50 of 10,001)" post.lua "$FURL/get_contacts"; fs=$RATE; fsl=$P50
AUTH=$PBTOKEN run "PocketBase list (50 of 10,000)" get.lua "$PBSEARCH"; ps=$RATE
run "fincom insert_contact (full)" insert_contact.lua "$FURL/insert_contact"; fi=$RATE
# Right after the inserts, before the index is merged again: the search
# the inserts left behind.
BODY=$fbody run "fincom search after inserts" post.lua "$FURL/get_contacts"; fs2=$RATE; fsl2=$P50
PB=1 AUTH=$PBTOKEN run "PocketBase create (superuser)" insert_contact.lua "$PURL/api/collections/contacts/records"; pi=$RATE
PB=1 AUTH= run "PocketBase create (anonymous)" insert_contact.lua "$PURL/api/collections/contacts/records"; pa=$RATE
# The inserts once more, in turn: a virtual machine's neighbours come and
# go, and two rounds tell a passing slowdown from a difference.
run "fincom insert_contact (full), again" insert_contact.lua "$FURL/insert_contact"; fi2=$RATE
PB=1 AUTH= run "PocketBase create (anonymous), again" insert_contact.lua "$PURL/api/collections/contacts/records"; pa2=$RATE
awk -v fs="$fs" -v ps="$ps" -v fi="$fi" -v pi="$pi" -v pa="$pa" -v fi2="$fi2" -v pa2="$pa2" -v fs2="$fs2" -v fsl="$fsl" -v fsl2="$fsl2" 'BEGIN {
  printf "# ratio fincom/PocketBase: search %.2fx (its authenticated list), insert %.2fx its superuser'"'"'s create, %.2fx and %.2fx its anonymous create (%.2fx both rounds)\n", fs / ps, fi / pi, fi / pa, fi2 / pa2, (fi + fi2) / (pa + pa2)
  printf "# fincom search right after the inserts: %.2fx the latency (p50) and %.2fx the throughput of the search before them\n", fsl2 / fsl, fs2 / fs }'
