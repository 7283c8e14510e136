-- done() for every load script: one line with the route ($ROUTE),
-- requests/s, p50 and p99 latency in ms, and the failed requests (non-2xx
-- answers, connection errors and timeouts).
function done(summary, latency, requests)
  local secs = summary.duration / 1e6
  local e = summary.errors
  io.write(string.format("%-34s %9.0f req/s   p50 %7.2f ms   p99 %7.2f ms   errors %d\n",
    os.getenv("ROUTE"), summary.requests / secs, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    e.status + e.connect + e.read + e.write + e.timeout))
end
