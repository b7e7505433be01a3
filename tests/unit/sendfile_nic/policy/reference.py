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


def s3fifo(seq, cap):
    """Small FIFO S (a tenth), main FIFO M, ghost FIFO G of keys evicted
    from S (as many as M has slots), 2-bit use counters, as the paper's
    algorithm: an eviction that starts in S goes on in S until a block
    leaves S for good (or S is empty); a key found in G leaves it and
    frees its place.  With the change of libCacheSim's S3FIFO: until the
    first eviction, a new block that finds S at its share enters M."""
    scap = max(1, cap // 10)
    gcap = max(1, cap - scap)
    small, main = deque(), deque()      # appendleft: head, pop: tail
    freq, ghost, hits = {}, OrderedDict(), 0
    evicted = False

    for k in seq:
        if k in freq:
            hits += 1
            freq[k] = min(freq[k] + 1, 3)
            continue
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
        if k in ghost:
            del ghost[k]
            main.appendleft(k)
        elif not evicted and len(small) >= scap:
            main.appendleft(k)
        else:
            small.appendleft(k)
        freq[k] = 0
    return hits


def arc(seq, c):
    """ARC as the paper's Figure 4 writes it (integer division in the
    adaptation steps)."""
    t1, t2, b1, b2 = OrderedDict(), OrderedDict(), OrderedDict(), \
        OrderedDict()                   # the last item is the MRU
    p, hits = 0, 0

    def replace(in_b2):
        if t1 and ((in_b2 and len(t1) == p) or len(t1) > p):
            k, _ = t1.popitem(last=False)
            b1[k] = True
        else:
            k, _ = t2.popitem(last=False)
            b2[k] = True

    for x in seq:
        if x in t1:
            del t1[x]
            t2[x] = True
            hits += 1
        elif x in t2:
            t2.move_to_end(x)
            hits += 1
        elif x in b1:
            p = min(c, p + max(len(b2) // len(b1), 1))
            replace(False)
            del b1[x]
            t2[x] = True
        elif x in b2:
            p = max(0, p - max(len(b1) // len(b2), 1))
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


POLICIES = (("lru", lru), ("fifo", fifo), ("clock", clock), ("sieve", sieve),
            ("s3fifo", s3fifo), ("arc", arc), ("lfu", lfu))

if __name__ == "__main__":
    seq = sequence()
    print("/* generated by reference.py: policy, capacity, hits of %d */"
          % N_ACCESSES)
    for name, fn in POLICIES:
        for cap in CAPACITIES:
            print('    {"%s", %d, %d},' % (name, cap, fn(seq, cap)))
