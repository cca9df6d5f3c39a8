-- wrk -s percentiles.lua: prints p50, p99, p99.9 and ids per second (ids per request given as IDS env)
done = function(summary, latency, requests)
  local ids = tonumber(os.getenv("IDS") or "1")
  local secs = summary.duration / 1e6
  io.write(string.format("  requests/s %.0f, ids/s %.0f, errors %d (non-2xx %d)\n", summary.requests / secs,
    summary.requests * ids / secs, summary.errors.connect + summary.errors.read + summary.errors.write +
    summary.errors.timeout, summary.errors.status))
  io.write(string.format("  latency p50 %.3f ms, p99 %.3f ms, p99.9 %.3f ms, max %.3f ms\n",
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency:percentile(99.9) / 1000,
    latency.max / 1000))
end
