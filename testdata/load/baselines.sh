#!/usr/bin/env bash
# Each hot listing through fincom's real handler beside a bare baseline
# of the same rows (the same SQL with database/sql, shopspring/decimal and
# encoding/json alone, which first proves it answers the same bytes): the
# Go benchmarks that pair BenchmarkX with BenchmarkXBaseline (or a
# sub-benchmark with its _baseline), run here and printed as ratios, so
# that a noisy machine still tells how far fincom is from the bare query.
# run.sh runs this.
#
#   testdata/load/baselines.sh
#   BENCHTIME=5s testdata/load/baselines.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
BENCHTIME=${BENCHTIME:-2s}
go test ./server -run '^$' -bench 'Transactions|ListSalesOrders$|ListSalesOrdersBaseline|GetContacts|InventoryReports' \
  -benchtime "$BENCHTIME" 2>/dev/null | awk '
  /^Benchmark/ {
    name = $1; sub(/-[0-9]+$/, "", name); sub(/^Benchmark/, "", name)
    for (i = 2; i <= NF; i++) if ($i == "ns/op") ns[name] = $(i-1)
    order[++n] = name
  }
  END {
    printf "%-40s %12s %12s %8s\n", "listing (handler beside bare SQL)", "fincom µs", "bare µs", "ratio"
    for (i = 1; i <= n; i++) {
      name = order[i]
      if (name ~ /(Baseline|_baseline)$/) continue
      # BenchmarkX/case beside BenchmarkXBaseline/case, or a case beside
      # its own _baseline.
      top = name; rest = ""
      if (k = index(name, "/")) { top = substr(name, 1, k - 1); rest = substr(name, k) }
      base = top "Baseline" rest
      if (!(base in ns)) base = name "_baseline"
      if (!(base in ns)) continue
      printf "%-40s %12.1f %12.1f %7.2fx\n", name, ns[name] / 1000, ns[base] / 1000, ns[name] / ns[base]
    }
  }'
