-- wrk script: SPECweb99's static request mix (docs/nicload.md), for a file
-- set made by "nicload fileset --connections N --root DOCROOT".
--
--   wrk -t1 -c16 -d10s -s bench/specweb99.lua http://127.0.0.1:8080/ -- 100
--
-- The argument is the N the file set was made for (default 10).  Each
-- request draws a class (35/50/14/1 %), a directory by Zipf (alpha 1) over
-- the file set's directories and a file of the class by Zipf (alpha 1)
-- over 9 ranks mapped to file numbers 4, 3, 5, 2, 6, 1, 7, 8, 0, as nicload
-- does.  What it does not do: wrk is closed-loop, so there is no pacing to
-- 400 kbit/s, no conformance and no 5-15 requests a connection (wrk keeps
-- its connections open); it measures throughput under the same mix, not
-- SPECweb99's metric.  Use nicload for that.

local rank_file = {4, 3, 5, 2, 6, 1, 7, 8, 0}
local class_cdf = {0.35, 0.85, 0.99, 1.0}
local dir_cdf, file_cdf, ndirs = {}, {}, 0

-- cumulative weights 1 / (i + 1), i from 0 to n - 1
local function zipf_cdf(n)
    local cdf, sum = {}, 0
    for i = 1, n do
        sum = sum + 1 / i
        cdf[i] = sum
    end
    return cdf
end

-- the first index whose cumulative weight passes a uniform draw
local function pick(cdf)
    local x, lo, hi = math.random() * cdf[#cdf], 1, #cdf
    while lo < hi do
        local mid = math.floor((lo + hi) / 2)
        if cdf[mid] >= x then hi = mid else lo = mid + 1 end
    end
    return lo
end

function init(args)
    local n = tonumber(args[1] or "10")
    ndirs = math.floor(25 + ((400000.0 / 122000.0) * n) / 5.0)
    dir_cdf = zipf_cdf(ndirs)
    file_cdf = zipf_cdf(9)
    math.randomseed(os.time() + (id or 0))
end

function request()
    local u, class = math.random(), 3
    for k = 1, 4 do
        if u <= class_cdf[k] then class = k - 1 break end
    end
    local dir = pick(dir_cdf) - 1
    local file = rank_file[pick(file_cdf)]
    return wrk.format("GET", string.format(
        "/file_set/dir%05d/class%d_%d", dir, class, file))
end

done = function(summary, latency, requests)
    local s = summary.duration / 1e6
    io.write(string.format(
        "specweb99 static mix: %d requests, %.1f/s, %.2f Mb/s, " ..
        "%d non-2xx\n", summary.requests,
        summary.requests / s, summary.bytes * 8 / s / 1e6,
        summary.errors.status))
end
