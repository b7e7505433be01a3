"""Summarise rounds of two servers loaded at the same time (bench/lib.sh's
run_together, with wrk or h2load): each line of FILE is "size requests-1 ticks-1 requests-2
ticks-2"; prints each server's CPU per request and the median of the
rounds' ratios (2 / 1), and writes them as JSON.
Usage: python3 bench/together.py FILE CLK_TCK NAME-1 NAME-2 OUT.json"""

import json
import statistics
import sys


def main():
    path, hz, a, b, out = sys.argv[1:]
    rounds = {}
    for line in open(path):
        size, r1, t1, r2, t2 = line.split()
        us1 = int(t1) / float(hz) * 1e6 / int(r1)
        us2 = int(t2) / float(hz) * 1e6 / int(r2)
        rounds.setdefault(size, []).append((us1, us2, us2 / us1))
    print("%-6s %10s %10s %9s   %s" % ("size", a, b, "ratio",
                                      "rounds' ratios, lowest-highest"))
    res = []
    for size, v in rounds.items():
        ratios = sorted(x[2] for x in v)
        med = statistics.median(ratios)
        print("%-6s %10.2f %10.2f %8.3fx   %.3f-%.3f" % (
            size, statistics.median(x[0] for x in v),
            statistics.median(x[1] for x in v), med, ratios[0], ratios[-1]))
        res.append({"size": size, "cpu_us_per_request": [[x[0], x[1]] for x in v],
                    "cpu_ratio": med, "servers": [a, b]})
    json.dump(res, open(out, "w"), indent=1)
    print("results: " + out)


if __name__ == "__main__":
    main()
