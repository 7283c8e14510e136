-- Posts $BODY to the URL wrk was given and, when done, prints one line:
-- route, requests/s, p50 and p99 latency in ms, and non-2xx answers.
wrk.method = "POST"
wrk.body = os.getenv("BODY")
wrk.headers["Content-Type"] = "application/json"

function done(summary, latency, requests)
  local secs = summary.duration / 1e6
  local bad = summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
  io.write(string.format("%-34s %9.0f req/s   p50 %7.2f ms   p99 %7.2f ms   errors %d\n",
    os.getenv("ROUTE"), summary.requests / secs, latency:percentile(50) / 1000, latency:percentile(99) / 1000, bad))
end
