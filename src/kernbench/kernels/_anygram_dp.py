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
from numba import njit, prange


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
def pair_west_table(t1, t2, match, lam):
    """Algorithm 2 with ``theta(S1[i], S2[j])`` read from a precomputed 0/1 type match table.

    The ``if`` becomes a multiplication by the table entry: a cell that does
    not match gets ``0 * (...) = 0`` and adds an exact zero to ``kernel``, so the
    values are those of the branching form, without its mispredicted branches.
    """
    n1, n2 = t1.shape[0], t2.shape[0]
    nxt = np.zeros(n2 + 1)
    cur = np.zeros(n2 + 1)
    kernel = 0.0
    for i in range(n1 - 1, -1, -1):
        row = match[t1[i]]
        for j in range(n2):
            d = row[t2[j]] * (lam * (1.0 + nxt[j + 1]))
            cur[j] = d
            kernel += d
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


@njit(cache=True, parallel=True)
def gram_sm(tok_x, off_x, tok_y, off_y, pa, pb, lam, out):
    """Fill ``out[k]`` with the sm kernel of pair ``(pa[k], pb[k])``."""
    for k in prange(pa.shape[0]):
        a, b = pa[k], pb[k]
        out[k] = pair_sm(tok_x[off_x[a] : off_x[a + 1]], tok_y[off_y[b] : off_y[b + 1]], lam)


@njit(cache=True, parallel=True)
def gram_west_table(tok_x, off_x, tok_y, off_y, match, pa, pb, lam, out):
    """Fill ``out[k]`` with the west kernel of pair ``(pa[k], pb[k])`` from a type match table."""
    for k in prange(pa.shape[0]):
        a, b = pa[k], pb[k]
        out[k] = pair_west_table(tok_x[off_x[a] : off_x[a + 1]], tok_y[off_y[b] : off_y[b + 1]], match, lam)


@njit(cache=True, parallel=True)
def gram_west(un_x, off_x, un_y, off_y, pa, pb, lam, theta, out):
    """Fill ``out[k]`` with the west kernel of pair ``(pa[k], pb[k])``, similarities in the loop."""
    for k in prange(pa.shape[0]):
        a, b = pa[k], pb[k]
        out[k] = pair_west(un_x[off_x[a] : off_x[a + 1]], un_y[off_y[b] : off_y[b + 1]], lam, theta)


@njit(cache=True, parallel=True)
def gram_wess(un_x, off_x, un_y, off_y, pa, pb, lam, out):
    """Fill ``out[k]`` with the wess kernel of pair ``(pa[k], pb[k])``."""
    for k in prange(pa.shape[0]):
        a, b = pa[k], pb[k]
        out[k] = pair_wess(un_x[off_x[a] : off_x[a + 1]], un_y[off_y[b] : off_y[b + 1]], lam)


@njit(cache=True, nogil=True)
def _west_task(tx, ox, ty, oy, indptr, indices, a, b0, b1, lam, out, k0):
    """Kernels of sentence ``a`` with sentences ``b0..b1-1`` through sparse match lists.

    For ``a`` it builds, per type ``t``, the list of positions ``i`` of ``a`` whose
    type matches ``t`` (Algorithm 2's ``theta`` = 1). A pair then visits only its
    matching cells, column by column from the right, with
    ``delta[i][j] = lam * (1 + delta[i + 1][j + 1])``; the other cells are 0.
    """
    s1 = tx[ox[a] : ox[a + 1]]
    n1 = s1.shape[0]
    n_types = indptr.shape[0] - 1
    total = 0
    for i in range(n1):
        total += indptr[s1[i] + 1] - indptr[s1[i]]
    head = np.full(n_types, -1, dtype=np.int64)
    link = np.empty(total, dtype=np.int64)
    pos = np.empty(total, dtype=np.int64)
    k = 0
    for i in range(n1):
        t = s1[i]
        for q in range(indptr[t], indptr[t + 1]):
            u = indices[q]
            pos[k] = i
            link[k] = head[u]
            head[u] = k
            k += 1
    nxt = np.zeros(n1 + 1)
    cur = np.zeros(n1 + 1)
    for b in range(b0, b1):
        s2 = ty[oy[b] : oy[b + 1]]
        n2 = s2.shape[0]
        kernel = 0.0
        for j in range(n2 - 1, -1, -1):
            q = head[s2[j]]
            while q != -1:
                i = pos[q]
                d = lam * (1.0 + nxt[i + 1])
                cur[i] = d
                kernel += d
                q = link[q]
            if j + 1 < n2:  # clear column j + 1 before it becomes column j's scratch
                q = head[s2[j + 1]]
                while q != -1:
                    nxt[pos[q]] = 0.0
                    q = link[q]
            nxt, cur = cur, nxt
        if n2:
            q = head[s2[0]]
            while q != -1:
                nxt[pos[q]] = 0.0
                q = link[q]
        out[k0 + b - b0] = kernel


@njit(cache=True, parallel=True)
def gram_west_lists(tx, ox, ty, oy, indptr, indices, ta, tb0, tb1, tstart, lam, out):
    """Fill ``out`` for tasks ``(ta[k], tb0[k]..tb1[k])``, task ``k``'s pairs starting at ``out[tstart[k]]``."""
    for k in prange(ta.shape[0]):
        _west_task(tx, ox, ty, oy, indptr, indices, ta[k], tb0[k], tb1[k], lam, out, tstart[k])
