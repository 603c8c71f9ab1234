"""Numba-jitted dynamic programmes of the any-gram kernels (Kaljahi & Foster, Algorithms 1-3).

Sentences arrive flattened: ``tokens[offsets[a]:offsets[a + 1]]`` (token or type
ids) or ``units[offsets[a]:offsets[a + 1]]`` (unit-norm token vectors, one row per
token). Each pair function follows its algorithm line by line: the outer loop
runs over sentence 1 backwards, the inner loop over sentence 2 forwards, and
``delta[i][j]`` is built from ``delta[i + 1][j + 1]``. Only two rows of the
``delta`` table are alive at any time, so they are kept in a two-row buffer; the
values and the order in which ``kernel`` accumulates them are those of the full
table. The Gram drivers run over a flat list of pairs with ``prange``, so the
work is split by pairs, not by rows.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange, types
from numba.extending import intrinsic

from kernbench.kernels._prange import prange_njit


@njit(cache=True, nogil=True, fastmath=True)
def dot(u, v):
    """Inner product of two equal-length 1-D arrays (vectorised; the same inputs give the same bits)."""
    acc = 0.0
    for k in range(u.shape[0]):
        acc += u[k] * v[k]
    return acc


@njit(cache=True, nogil=True)
def pair_sm(s1, s2, lam):
    """Algorithm 1: any-gram kernel with string match between two id sequences."""
    n1, n2 = s1.shape[0], s2.shape[0]
    nxt = np.zeros(n2 + 1)
    cur = np.zeros(n2 + 1)
    kernel = 0.0
    for i in range(n1 - 1, -1, -1):
        for j in range(n2):
            if s1[i] == s2[j]:
                d = lam * (1.0 + nxt[j + 1])
                cur[j] = d
                kernel += d
            else:
                cur[j] = 0.0
        nxt, cur = cur, nxt
    return kernel


@njit(cache=True, nogil=True)
def pair_west(e1, e2, lam, theta):
    """Algorithm 2: any-gram kernel with the similarity threshold, cosine computed in the loop."""
    n1, n2 = e1.shape[0], e2.shape[0]
    nxt = np.zeros(n2 + 1)
    cur = np.zeros(n2 + 1)
    kernel = 0.0
    for i in range(n1 - 1, -1, -1):
        for j in range(n2):
            if dot(e1[i], e2[j]) >= theta:
                d = lam * (1.0 + nxt[j + 1])
                cur[j] = d
                kernel += d
            else:
                cur[j] = 0.0
        nxt, cur = cur, nxt
    return kernel


@njit(cache=True, nogil=True)
def pair_west_ids(e1, e2, i1, i2, lam, theta):
    """Algorithm 2 with an identity test before the cosine: tokens of equal identity ``>= 0`` always match."""
    n1, n2 = e1.shape[0], e2.shape[0]
    nxt = np.zeros(n2 + 1)
    cur = np.zeros(n2 + 1)
    kernel = 0.0
    for i in range(n1 - 1, -1, -1):
        for j in range(n2):
            if (i1[i] >= 0 and i1[i] == i2[j]) or dot(e1[i], e2[j]) >= theta:
                d = lam * (1.0 + nxt[j + 1])
                cur[j] = d
                kernel += d
            else:
                cur[j] = 0.0
        nxt, cur = cur, nxt
    return kernel


@njit(cache=True, nogil=True)
def pair_wess(e1, e2, lam):
    """Algorithm 3: any-gram kernel with the similarity score (no ``if``)."""
    n1, n2 = e1.shape[0], e2.shape[0]
    nxt = np.zeros(n2 + 1)
    cur = np.zeros(n2 + 1)
    kernel = 0.0
    for i in range(n1 - 1, -1, -1):
        for j in range(n2):
            d = lam * (dot(e1[i], e2[j]) + nxt[j + 1])
            cur[j] = d
            kernel += d
        nxt, cur = cur, nxt
    return kernel


@prange_njit
def gram_sm(tok_x, off_x, tok_y, off_y, pa, pb, lam, out):
    """Fill ``out[k]`` with the sm kernel of pair ``(pa[k], pb[k])``."""
    for k in prange(pa.shape[0]):
        a, b = pa[k], pb[k]
        out[k] = pair_sm(tok_x[off_x[a] : off_x[a + 1]], tok_y[off_y[b] : off_y[b + 1]], lam)


@prange_njit
def gram_west(un_x, off_x, un_y, off_y, pa, pb, lam, theta, out):
    """Fill ``out[k]`` with the west kernel of pair ``(pa[k], pb[k])``, similarities in the loop."""
    for k in prange(pa.shape[0]):
        a, b = pa[k], pb[k]
        out[k] = pair_west(un_x[off_x[a] : off_x[a + 1]], un_y[off_y[b] : off_y[b + 1]], lam, theta)


@prange_njit
def gram_west_ids(un_x, id_x, off_x, un_y, id_y, off_y, pa, pb, lam, theta, out):
    """Fill ``out[k]`` with the west kernel of pair ``(pa[k], pb[k])``, identity test before the cosine."""
    for k in prange(pa.shape[0]):
        a, b = pa[k], pb[k]
        out[k] = pair_west_ids(
            un_x[off_x[a] : off_x[a + 1]], un_y[off_y[b] : off_y[b + 1]],
            id_x[off_x[a] : off_x[a + 1]], id_y[off_y[b] : off_y[b + 1]], lam, theta,
        )


@prange_njit
def gram_wess(un_x, off_x, un_y, off_y, pa, pb, lam, out):
    """Fill ``out[k]`` with the wess kernel of pair ``(pa[k], pb[k])``."""
    for k in prange(pa.shape[0]):
        a, b = pa[k], pb[k]
        out[k] = pair_wess(un_x[off_x[a] : off_x[a + 1]], un_y[off_y[b] : off_y[b + 1]], lam)


@intrinsic
def _popcount(typingctx, x):
    """Number of set bits of a uint64 (LLVM's ``ctpop``)."""

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.uint64(types.uint64), codegen


@njit(cache=True, nogil=True)
def _west_bits_task(tx, ox, ty, oy, indptr, indices, lam_pow, a, b0, b1, gram):
    """West kernels of sentence ``a`` with sentences ``b0..b1-1`` into ``gram[a, b0:b1]``, bit-parallel over ``a``.

    Unrolled, Algorithm 2's cell is ``delta[i][j] = lam + lam**2 + ... + lam**r``
    with ``r`` the length of the run of matching cells ``(i, j), (i+1, j+1), ...``,
    so the kernel is ``sum_k lam**k * N_k``, ``N_k`` the number of cells that
    start a run of at least ``k`` matches. Bit ``i`` of ``mask[t]`` says that
    position ``i`` of ``a`` matches token type ``t`` (from the match table); the
    cells of column ``j`` starting runs of at least ``k + 1`` matches are
    ``level_k(j) = mask[t_j] & (level_{k-1}(j + 1) >> 1)``, each level a few
    machine words, and an empty level ends the column. Sentences of up to 64
    tokens take a one-word path.
    """
    n1 = ox[a + 1] - ox[a]
    words = max((n1 + 63) // 64, 1)
    n_types = indptr.shape[0] - 1
    mask = np.zeros(n_types * words, dtype=np.uint64)  # mask[t * words + w]
    for i in range(n1):
        t = tx[ox[a] + i]
        bit = np.uint64(1) << np.uint64(i % 64)
        for q in range(indptr[t], indptr[t + 1]):
            mask[indices[q] * words + i // 64] |= bit
    prev = np.zeros((n1 + 1) * words, dtype=np.uint64)  # level k, word w at [k * words + w]
    cur = np.zeros((n1 + 1) * words, dtype=np.uint64)
    one, top = np.uint64(1), np.uint64(63)
    counts = np.zeros(n1 + 1, dtype=np.uint64)  # N_k of the current pair
    for b in range(b0, b1):
        kernel = 0.0
        deepest = 0
        live = 0  # levels of the previous column that may be non-empty
        for j in range(oy[b + 1] - 1, oy[b] - 1, -1):
            base = ty[j] * words
            k = 0
            if words == 1:
                m = mask[base]
                v = m
                while v:
                    cur[k] = v
                    counts[k] += _popcount(v)
                    k += 1
                    if k > live:
                        break
                    v = m & (prev[k - 1] >> one)
                deepest = max(deepest, k)
            else:
                while k <= live:
                    count = 0
                    for w in range(words):
                        v = mask[base + w]
                        if k > 0:
                            shifted = prev[(k - 1) * words + w] >> one
                            if w + 1 < words:
                                shifted |= prev[(k - 1) * words + w + 1] << top
                            v &= shifted
                        cur[k * words + w] = v
                        count += _popcount(v)
                    if count == 0:
                        break
                    counts[k] += count
                    k += 1
                deepest = max(deepest, k)
            live = k
            prev, cur = cur, prev
        for k in range(deepest):
            kernel += lam_pow[k] * counts[k]
            counts[k] = 0
        gram[a, b] = kernel


@prange_njit
def gram_west_bits(tx, ox, ty, oy, indptr, indices, ta, tb0, tb1, lam, gram):
    """Fill ``gram[ta[k], tb0[k]:tb1[k]]`` for every task ``k`` with the west kernel from a type match table."""
    longest = 1
    for a in range(ox.shape[0] - 1):
        longest = max(longest, ox[a + 1] - ox[a])
    lam_pow = np.empty(longest + 1)
    for k in range(longest + 1):
        lam_pow[k] = lam ** (k + 1)
    for k in prange(ta.shape[0]):
        _west_bits_task(tx, ox, ty, oy, indptr, indices, lam_pow, ta[k], tb0[k], tb1[k], gram)
