-- wrk script: DEPTH requests for the same path written back to back on
-- each connection (HTTP/1.1 pipelining), then the same JSON line as
-- report.lua.  wrk -s bench/wrk/pipeline.lua URL -- DEPTH (default 16).
-- Pipelining is wrk's own mechanism (a request() that returns several),
-- so latency is per batch: compare requests/s.

-- done(): the JSON line (run from the checkout, as the bench scripts do)
dofile("bench/wrk/report.lua")

init = function(args)
    local depth = tonumber(args[1] or "16")
    local r = {}
    for i = 1, depth do
        r[i] = wrk.format(nil)
    end
    req = table.concat(r)
end

request = function()
    return req
end
