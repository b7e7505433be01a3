-- wrk script with one purpose: print the run's result as one JSON line
-- (prefixed "JSON ") so that bench scripts need not parse wrk's text.
-- Only the done() hook is defined, so wrk's request path stays the fast
-- built-in one.

done = function(summary, latency, requests)
    local s = summary.duration / 1e6
    io.write(string.format(
        'JSON {"requests": %d, "bytes": %d, "seconds": %.3f, ' ..
        '"requests_per_s": %.1f, "mib_per_s": %.3f, ' ..
        '"errors": {"connect": %d, "read": %d, "write": %d, ' ..
        '"status": %d, "timeout": %d}, ' ..
        '"latency_us": {"p50": %d, "p90": %d, "p99": %d, "max": %d}}\n',
        summary.requests, summary.bytes, s,
        summary.requests / s, summary.bytes / s / 1048576,
        summary.errors.connect, summary.errors.read, summary.errors.write,
        summary.errors.status, summary.errors.timeout,
        latency:percentile(50), latency:percentile(90),
        latency:percentile(99), latency.max))
end
