#!/usr/bin/env python3
"""Independent reference implementations of the replacement policies,
written from their published descriptions (not from the C code), and the
golden hit counts test_policies.c checks.

The access sequence is the one test_policies.c generates: a 64-bit LCG
(Knuth's MMIX constants), two draws per access, block = a * b // 1000 with
a, b uniform in [0, 1000): skewed toward small block numbers.

Usage: python3 tests/unit/sendfile_nic/policy/reference.py
prints the table to paste into test_policies.c.
"""

import heapq
from collections import OrderedDict, deque

N_ACCESSES = 20000
CAPACITIES = (16, 64, 256)


def sequence():
    x = 42
    out = []
    for _ in range(N_ACCESSES):
        x = (x * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        a = (x >> 33) % 1000
        x = (x * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        b = (x >> 33) % 1000
        out.append(a * b // 1000)
    return out


def lru(seq, cap):
    c, hits = OrderedDict(), 0
    for k in seq:
        if k in c:
            hits += 1
            c.move_to_end(k)
        else:
            if len(c) == cap:
                c.popitem(last=False)
            c[k] = True
    return hits


def fifo(seq, cap):
    q, s, hits = deque(), set(), 0
    for k in seq:
        if k in s:
            hits += 1
        else:
            if len(q) == cap:
                s.discard(q.popleft())
            q.append(k)
            s.add(k)
    return hits


def clock(seq, cap):
    """Frames filled in order; a new block takes the frame of the block it
    replaces, unreferenced; the hand clears bits until it finds a clear
    one."""
    frames, ref, where, hand, hits = [], [], {}, 0, 0
    for k in seq:
        if k in where:
            hits += 1
            ref[where[k]] = 1
            continue
        if len(frames) < cap:
            where[k] = len(frames)
            frames.append(k)
            ref.append(0)
            continue
        while ref[hand]:
            ref[hand] = 0
            hand = (hand + 1) % cap
        del where[frames[hand]]
        frames[hand], ref[hand], where[k] = k, 0, hand
        hand = (hand + 1) % cap
    return hits


def sieve(seq, cap):
    """Queue newest-first (index 0 = head); the hand walks from the tail
    toward the head, clearing visited bits, and evicts the first
    unvisited object; it stays at the next older-to-newer position."""
    q, visited, hits, hand = [], {}, 0, None   # hand: the object it rests on
    for k in seq:
        if k in visited:
            hits += 1
            visited[k] = True
            continue
        if len(q) == cap:
            i = q.index(hand) if hand is not None else len(q) - 1
            while visited[q[i]]:
                visited[q[i]] = False
                i = i - 1 if i > 0 else len(q) - 1
            victim = q[i]
            hand = q[i - 1] if i > 0 else None
            q.pop(i)
            del visited[victim]
        q.insert(0, k)
        visited[k] = False
    return hits


def s3fifo(seq, cap, scap=None, gcap=None, ghost_first=False, out=None):
    """Small FIFO S (a tenth), main FIFO M, ghost FIFO G of keys evicted
    from S (as many as M has slots), 2-bit use counters, as the paper's
    algorithm: an eviction that starts in S goes on in S until a block
    leaves S for good (or S is empty); a key found in G leaves it and
    frees its place.  With the change of libCacheSim's S3FIFO: until the
    first eviction, a new block that finds S at its share enters M.

    Options for bench/libcachesim_explain.py: scap and gcap, S's share and
    G's length in blocks; ghost_first, take a missed key out of G before
    the eviction that makes room for it (the paper's INSERT evicts first,
    so that eviction can push the key's ghost out); out, a list that
    gets 1 (hit) or 0 per access."""
    if scap is None:
        scap = max(1, cap // 10)
    if gcap is None:
        gcap = max(1, cap - scap)
    small, main = deque(), deque()      # appendleft: head, pop: tail
    freq, ghost, hits = {}, OrderedDict(), 0
    evicted = False

    for k in seq:
        if k in freq:
            hits += 1
            freq[k] = min(freq[k] + 1, 3)
            if out is not None:
                out.append(1)
            continue
        if out is not None:
            out.append(0)
        in_ghost = ghost_first and ghost.pop(k, False)
        if len(freq) == cap:
            evicted = True
            from_small = False
            while True:
                if small and (from_small or len(small) >= scap or not main):
                    from_small = True
                    t = small.pop()
                    if freq[t] > 1:
                        freq[t] = 0
                        main.appendleft(t)
                        continue
                    del freq[t]
                    if len(ghost) == gcap:
                        ghost.popitem(last=False)
                    ghost[t] = True
                    break
                t = main.pop()
                if freq[t] > 0:
                    freq[t] -= 1
                    main.appendleft(t)
                    continue
                del freq[t]
                break
        if in_ghost or (not ghost_first and ghost.pop(k, False)):
            main.appendleft(k)
        elif not evicted and len(small) >= scap:
            main.appendleft(k)
        else:
            small.appendleft(k)
        freq[k] = 0
    return hits


def arc(seq, c, unit=1, real_steps=False, out=None):
    """ARC as the paper's Figure 4 writes it (integer division in the
    adaptation steps).

    Options for bench/libcachesim_explain.py: unit, the target p counted
    in 1/unit of a block (libCacheSim counts it in bytes: unit 4096 for
    4 KiB blocks); real_steps, steps of the ghost lists' ratio unrounded,
    p keeping the fraction, as libCacheSim moves it; out, a list that
    gets 1 (hit) or 0 per access."""
    t1, t2, b1, b2 = OrderedDict(), OrderedDict(), OrderedDict(), \
        OrderedDict()                   # the last item is the MRU
    p, hits = 0, 0

    def step(a, b):
        return max(a / b if real_steps else a // b, 1)

    def replace(in_b2):
        if t1 and ((in_b2 and len(t1) * unit == p) or len(t1) * unit > p):
            k, _ = t1.popitem(last=False)
            b1[k] = True
        else:
            k, _ = t2.popitem(last=False)
            b2[k] = True

    for x in seq:
        if out is not None:
            out.append(1 if x in t1 or x in t2 else 0)
        if x in t1:
            del t1[x]
            t2[x] = True
            hits += 1
        elif x in t2:
            t2.move_to_end(x)
            hits += 1
        elif x in b1:
            p = min(c * unit, p + step(len(b2), len(b1)))
            replace(False)
            del b1[x]
            t2[x] = True
        elif x in b2:
            p = max(0, p - step(len(b1), len(b2)))
            replace(True)
            del b2[x]
            t2[x] = True
        else:
            if len(t1) + len(b1) == c:
                if len(t1) < c:
                    b1.popitem(last=False)
                    replace(False)
                else:
                    t1.popitem(last=False)
            else:
                n = len(t1) + len(t2) + len(b1) + len(b2)
                if n >= c:
                    if n == 2 * c:
                        b2.popitem(last=False)
                    replace(False)
            t1[x] = True
    return hits


def lfu(seq, cap):
    """Evict the smallest (uses while cached, time of last use)."""
    uses, last, hits = {}, {}, 0
    for t, k in enumerate(seq):
        if k in uses:
            hits += 1
            uses[k] += 1
        else:
            if len(uses) == cap:
                victim = min(uses, key=lambda v: (uses[v], last[v]))
                del uses[victim], last[victim]
            uses[k] = 1
        last[k] = t
    return hits


def opt(seq, nxt, cap, admit_all=False, out=None):
    """Belady's OPT: on a miss in a full cache the block whose next use
    is the latest leaves; nxt[i] is the index of seq[i]'s next access
    (None: never).  A newcomer needed no sooner than every resident is
    declined, as nicsim's OPT does; admit_all takes it anyway (evicting
    the resident needed last), as libCacheSim's Belady does.  out, a
    list that gets 1 (hit) or 0 per access."""
    never = float("inf")
    res, heap, hits = {}, [], 0        # heap: (-next use, key), lazily
    for i, k in enumerate(seq):
        n = never if nxt[i] is None else nxt[i]
        hit = k in res
        if out is not None:
            out.append(1 if hit else 0)
        if not hit and len(res) == cap:
            while res.get(heap[0][1]) != -heap[0][0]:
                heapq.heappop(heap)    # an entry its block outlived
            if not admit_all and -heap[0][0] <= n:
                continue
            del res[heapq.heappop(heap)[1]]
        hits += hit
        res[k] = n
        heapq.heappush(heap, (-n, k))
    return hits


POLICIES = (("lru", lru), ("fifo", fifo), ("clock", clock), ("sieve", sieve),
            ("s3fifo", s3fifo), ("arc", arc), ("lfu", lfu))

if __name__ == "__main__":
    seq = sequence()
    print("/* generated by reference.py: policy, capacity, hits of %d */"
          % N_ACCESSES)
    for name, fn in POLICIES:
        for cap in CAPACITIES:
            print('    {"%s", %d, %d},' % (name, cap, fn(seq, cap)))
