"""The reference models' switches for libCacheSim's choices
(tests/unit/sendfile_nic/policy/reference.py, used by
bench/libcachesim_explain.py), on sequences worked by hand: each switch
changes the outcome exactly where its choice matters."""

import os
import sys

from nicd import check

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "unit",
                                "sendfile_nic", "policy"))
import reference  # noqa: E402


def test_s3fifo_ghost_lookup_before_the_eviction():
    # 2 slots: S and G hold one block each.  At the second C, G holds C;
    # evicting D from S first pushes C's ghost out (the paper's order: C
    # goes to S and, evicted for E, misses at the end), where taking C
    # out of G first sends it to M, where it outlives E's eviction of B
    out = []
    check(reference.s3fifo("ABCDCEC", 2, out=out) == 0
          and out == [0] * 7, "paper's order: %r" % out)
    out = []
    check(reference.s3fifo("ABCDCEC", 2, ghost_first=True, out=out) == 1
          and out == [0, 0, 0, 0, 0, 0, 1], "ghost first: %r" % out)


def test_arc_target_in_bytes_moves_slower():
    # B's ghost hit raises p by one: a block (T1 may hold one, so A, in
    # T2, is replaced and misses) or one byte (T1's one block is over it,
    # so C is replaced and A hits)
    out = []
    check(reference.arc("AABCBA", 2, out=out) == 1
          and out == [0, 1, 0, 0, 0, 0], "p in blocks: %r" % out)
    out = []
    check(reference.arc("AABCBA", 2, unit=4096, out=out) == 2
          and out == [0, 1, 0, 0, 0, 1], "p in bytes: %r" % out)


def test_opt_declines_or_admits_the_block_needed_last():
    # C is never used again: declined, A and B stay and hit; admitted, it
    # takes the place of B (needed last of the residents)
    seq, nxt = "ABCAB", [3, 4, None, None, None]
    check(reference.opt(seq, nxt, 2) == 2, "declined")
    out = []
    check(reference.opt(seq, nxt, 2, admit_all=True, out=out) == 1
          and out == [0, 0, 0, 1, 0], "admitted: %r" % out)
