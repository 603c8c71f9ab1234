"""NGTK: the tree-kernel any-grams of Kaljahi & Foster (2016), the baseline of the any-gram paper.

A sentence ``w_1 .. w_N`` becomes the binary tree of Figure 1 (``3N + 1`` nodes)::

    root -> P_1 C_1        P_i -> w_i over a leaf X (AT under aspect-term tokens)
    C_i  -> w_i over P_{i+1} C_{i+1}  (i < N);  C_N is the leaf w_N

and two trees are compared with the subset-tree kernel of Collins & Duffy with
decay ``lam``: ``K = sum_{n1, n2} Delta(n1, n2)`` with ``Delta = 0`` unless the
productions at ``n1`` and ``n2`` match, and otherwise
``Delta = lam * prod_k (1 + Delta(child_k(n1), child_k(n2)))`` (a leaf has no
production, so a pre-terminal gets ``lam``). ``NGTKsm`` matches labels exactly;
``NGTKwest`` matches two word labels when the cosine of their vectors reaches
``theta`` (Eq. 3-4) and the other labels (root, X, AT) exactly.

Exact fast path (``method="auto"``). Only three kinds of node pairs can match: the
roots, ``P_i``/``P'_j`` and ``C_i``/``C'_j``. With ``m(i, j)`` the match of the
words ``w_i``, ``w'_j`` and ``e(i, j)`` that of their leaves (X or AT)::

    p(i, j) = lam * m(i, j) * e(i, j)                                    (P_i, P'_j)
    c(i, j) = lam * m(i, j) * m(i+1, j+1) * (1 + p(i+1, j+1)) * (1 + c(i+1, j+1))
    root    = lam * m(1, 1) * (1 + p(1, 1)) * (1 + c(1, 1))

(``c = 0`` where ``C_i`` or ``C'_j`` is the last, leaf, node). Every term lives on
a diagonal run of matching word pairs ``(i + t, j + t)``, ``t < r``: ``c`` is 0 at
its last cell and follows from the next cell along it, so a run contributes
``sum_t p + c`` computed backwards over its ``r`` cells, and the run that starts at
``(1, 1)`` also gives the root (the value ``c`` would carry one cell further).
Unrolled, ``sum c`` over a run is ``sum_{s<t} prod_{u=s+1..t} lam (1 + p(u))``, one
term per shared n-gram of two or more words; without aspects the kernel is
``lam N_1 + sum_{k>=2} mu**(k-1) N_k + sum_{k<=L} mu**k`` with ``mu = lam (1 + lam)``,
``N_k`` the pairs of equal k-grams and ``L`` the number of equal first words. The fast path
visits only the matching word pairs: per sentence one bit mask of matching positions
per word type (from a sparse match table: equality for ``sm``, cosine >= ``theta``
for ``west``), the set bits of a column are its matching cells, and a run is walked
from its first cell only. ``method="dp"`` runs the tree DP above on every node pair.
"""

from __future__ import annotations

import numba
import numpy as np
import scipy.sparse as sp
from numba import njit, prange, types
from numba.extending import intrinsic

from kernbench.kernels import anygram as _agk
from kernbench.kernels._prange import prange_njit
from kernbench.kernels.anygram import _mirror_upper, _run_pairs, _unit_rows, match_table
from kernbench.progress import progress

ROOT, X_LEAF, AT_LEAF = -1, -2, -3
VARIANTS = ("sm", "west")
METHODS = ("auto", "dp")
#: Pairs per task of the fast path (a task builds one sentence's match masks, then compares it with that many).
_TASK = 4096


def anygram_tree(token_ids, aspect_mask=None) -> tuple[np.ndarray, np.ndarray]:
    """The Figure 1 tree of one sentence.

    Parameters
    ----------
    token_ids : sequence of int
        Non-negative word labels (token ids).
    aspect_mask : sequence of int, optional
        1 on aspect-term tokens, whose ``X`` leaf becomes ``AT``.

    Returns
    -------
    labels : ndarray of int64, shape (3N + 1,)
        Node labels in pre-order (parents before children): word ids, or
        ``ROOT`` (-1), ``X_LEAF`` (-2), ``AT_LEAF`` (-3).
    children : ndarray of int64, shape (3N + 1, 2)
        Child indices, -1 where absent.
    """
    ids = np.asarray(token_ids, dtype=np.int64).reshape(-1)
    if ids.size and ids.min() < 0:
        raise ValueError("token ids must be non-negative")
    n = ids.size
    mask = np.zeros(n, dtype=bool) if aspect_mask is None else np.asarray(aspect_mask, dtype=bool)
    if mask.size != n:
        raise ValueError(f"aspect mask of length {mask.size} for {n} tokens")
    labels = np.empty(3 * n + 1, dtype=np.int64)
    children = np.full((3 * n + 1, 2), -1, dtype=np.int64)
    labels[0] = ROOT
    if n:
        children[0] = (1, 3)
    for i in range(n):
        p, x, c = 3 * i + 1, 3 * i + 2, 3 * i + 3
        labels[p] = labels[c] = ids[i]
        labels[x] = AT_LEAF if mask[i] else X_LEAF
        children[p, 0] = x
        if i + 1 < n:
            children[c] = (3 * i + 4, 3 * i + 6)
    return labels, children


def tree_string(token_ids, aspect_mask=None) -> str:
    """The Figure 1 tree of one sentence in the bracketed format of SVM-Light-TK.

    Word labels are ``w<id>``, the other labels ``ROOT``, ``X`` and ``AT``; a node with
    children is ``(label child ...)`` and a leaf its bare label, e.g. ``[3, 5]`` gives
    ``(ROOT (w3 X) (w3 (w5 X) w5))``.

    Parameters
    ----------
    token_ids, aspect_mask
        As in :func:`anygram_tree`.

    Returns
    -------
    str
    """
    labels, children = anygram_tree(token_ids, aspect_mask)
    names = {ROOT: "ROOT", X_LEAF: "X", AT_LEAF: "AT"}
    text = [""] * labels.size
    for n in range(labels.size - 1, -1, -1):  # children come after their parent
        name = names.get(int(labels[n])) or f"w{int(labels[n])}"
        kids = [text[c] for c in children[n] if c >= 0]
        text[n] = f"({name} {' '.join(kids)})" if kids else name
    return text[0] if labels.size > 1 else "(ROOT)"


def _forest(X, aspect_masks):
    masks = [None] * len(X) if aspect_masks is None else list(aspect_masks)
    if len(masks) != len(X):
        raise ValueError(f"{len(masks)} aspect masks for {len(X)} sentences")
    trees = [anygram_tree(s, m) for s, m in zip(X, masks)]
    offsets = np.zeros(len(trees) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([t[0].size for t in trees])
    labels = np.concatenate([t[0] for t in trees]) if trees else np.zeros(0, np.int64)
    children = np.concatenate([t[1] for t in trees]) if trees else np.zeros((0, 2), np.int64)
    return labels, children, offsets


@njit(cache=True, nogil=True)
def _same(a, b, table, use_table):
    if use_table and a >= 0 and b >= 0:
        return table[a, b] != 0
    return a == b


@njit(cache=True, nogil=True)
def pair_subset_tree(l1, c1, l2, c2, lam, table, use_table):
    """Subset-tree kernel of two trees in pre-order arrays (children after their parent)."""
    n1, n2 = l1.shape[0], l2.shape[0]
    delta = np.zeros((n1, n2))
    kernel = 0.0
    for u in range(n1 - 1, -1, -1):
        if c1[u, 0] < 0:
            continue  # a leaf has no production
        for v in range(n2 - 1, -1, -1):
            if c2[v, 0] < 0 or (c1[u, 1] < 0) != (c2[v, 1] < 0):
                continue
            if not _same(l1[u], l2[v], table, use_table):
                continue
            d = lam
            for k in range(2):
                a, b = c1[u, k], c2[v, k]
                if a < 0:
                    break
                if not _same(l1[a], l2[b], table, use_table):
                    d = 0.0
                    break
                d *= 1.0 + delta[a, b]
            delta[u, v] = d
            kernel += d
    return kernel


@prange_njit
def _gram_trees(lx, cx, ox, ly, cy, oy, pa, pb, lam, table, use_table, out):
    for k in prange(pa.shape[0]):
        a, b = pa[k], pb[k]
        out[k] = pair_subset_tree(
            lx[ox[a] : ox[a + 1]], cx[ox[a] : ox[a + 1]], ly[oy[b] : oy[b + 1]], cy[oy[b] : oy[b + 1]], lam, table, use_table
        )


def _label_table(labels_x, labels_y, variant, vectors, theta, identical=False):
    """Compact word labels and the 0/1 word match table NGTKwest reads (1 x 1 dummy for sm); with
    ``identical`` every word matches itself, also one without a vector."""
    if variant == "sm":
        return labels_x, labels_y, np.zeros((1, 1), dtype=np.uint8)
    if vectors is None or theta is None:
        raise ValueError("NGTK west needs `vectors` and `theta`")
    vectors = np.asarray(vectors)
    words = np.unique(np.concatenate([labels_x[labels_x >= 0], labels_y[labels_y >= 0]]))
    if words.size and words.max() >= vectors.shape[0]:
        raise ValueError(f"token ids must lie in [0, {vectors.shape[0]}) to index vectors")
    table = match_table(_unit_rows(vectors[words]), theta).toarray().astype(np.uint8)
    if identical:
        np.fill_diagonal(table, 1)

    def compact(labels):
        out = labels.copy()
        out[labels >= 0] = np.searchsorted(words, labels[labels >= 0])
        return out

    return compact(labels_x), compact(labels_y), table


# --------------------------------------------------------------------------- fast path


@intrinsic
def _trailing_zeros(typingctx, x):
    """Index of the lowest set bit of a non-zero uint64 (LLVM's ``cttz``)."""

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], context.get_constant(types.boolean, True))

    return types.uint64(types.uint64), codegen


def _flat(X, aspect_masks):
    """Token ids, leaf flags (1 under an aspect token) and sentence offsets, checked as :func:`anygram_tree` does."""
    X = list(X)
    masks = [None] * len(X) if aspect_masks is None else list(aspect_masks)
    if len(masks) != len(X):
        raise ValueError(f"{len(masks)} aspect masks for {len(X)} sentences")
    ids, flags = [], []
    for k, (s, m) in enumerate(zip(X, masks)):
        s = np.asarray(s, dtype=np.int64).reshape(-1)
        if s.size and s.min() < 0:
            raise ValueError(f"sentence {k}: token ids must be non-negative")
        m = np.zeros(s.size, dtype=bool) if m is None else np.asarray(m, dtype=bool).reshape(-1)
        if m.size != s.size:
            raise ValueError(f"sentence {k}: aspect mask of length {m.size} for {s.size} tokens")
        ids.append(s)
        flags.append(m.astype(np.int8))
    offsets = np.zeros(len(X) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([s.size for s in ids])
    cat = lambda parts, dtype: np.concatenate(parts) if parts else np.zeros(0, dtype)  # noqa: E731
    return cat(ids, np.int64), cat(flags, np.int8), offsets


def _type_table(tokens, variant, vectors, theta, identical):
    """Each token's word type and the sparse match table over the types (identity for ``sm``)."""
    words, inverse = np.unique(tokens, return_inverse=True)
    inverse = inverse.astype(np.int64).reshape(-1)
    if variant == "sm":
        table = sp.identity(words.size, dtype=np.uint8, format="csr")
    else:
        if vectors is None or theta is None:
            raise ValueError("NGTK west needs `vectors` and `theta`")
        vectors = np.asarray(vectors)
        if words.size and words.max() >= vectors.shape[0]:
            raise ValueError(f"token ids must lie in [0, {vectors.shape[0]}) to index vectors")
        table = match_table(_unit_rows(vectors[words]), theta)
        if identical:
            table = table.maximum(sp.identity(words.size, dtype=np.uint8, format="csr")).astype(np.uint8).tocsr()
        table.sort_indices()
    return inverse, table.indptr.astype(np.int64), table.indices.astype(np.int64)


@njit(cache=True, nogil=True)
def _run_sum(fx, x0, fy, y0, r, lam, kernel):
    """``kernel`` plus ``sum p + c`` over the run of ``r`` matching cells from ``(x0, y0)``; also the value
    ``c`` would take one cell before the run (the roots' Delta when the run starts at the first words)."""
    c = 0.0
    for t in range(r - 1, -1, -1):
        p = lam if fx[x0 + t] == fy[y0 + t] else 0.0
        kernel += p + c
        c = lam * (1.0 + p) * (1.0 + c)
    return kernel, c


@njit(cache=True, nogil=True)
def _ngtk_task(tx, fx, ox, ty, fy, oy, indptr, indices, lam, a, b0, b1, out):
    """NGTK of sentence ``a`` with sentences ``b0..b1-1`` into ``out[:b1 - b0]``, over matching word pairs only.

    Bit ``i`` of ``mask[t]`` says that word ``i`` of ``a`` matches word type ``t``; the set bits of
    ``mask[t_j] & ~(mask[t_(j-1)] << 1)`` are the runs that start in column ``j`` of ``b``, each walked down
    its diagonal and summed backwards (module docstring). Sentences ``a`` of up to 64 words take a
    one-word path.
    """
    n1, x0 = ox[a + 1] - ox[a], ox[a]
    words = max((n1 + 63) // 64, 1)
    mask = np.zeros((indptr.shape[0] - 1) * words, dtype=np.uint64)
    for i in range(n1):
        t = tx[x0 + i]
        bit = np.uint64(1) << np.uint64(i % 64)
        for q in range(indptr[t], indptr[t + 1]):
            mask[indices[q] * words + i // 64] |= bit
    one, top = np.uint64(1), np.uint64(63)
    prev = np.zeros(words, dtype=np.uint64)
    for b in range(b0, b1):
        y0, n2 = oy[b], oy[b + 1] - oy[b]
        kernel = 0.0
        if words == 1:
            last = np.uint64(0)
            for j in range(n2):
                m = mask[ty[y0 + j]]
                v = m & ~(last << one)
                last = m
                while v:
                    i = np.int64(_trailing_zeros(v))
                    v &= v - one
                    r = 1
                    while i + r < n1 and j + r < n2 and (mask[ty[y0 + j + r]] >> np.uint64(i + r)) & one:
                        r += 1
                    kernel, up = _run_sum(fx, x0 + i, fy, y0 + j, r, lam, kernel)
                    if i == 0 and j == 0:
                        kernel += up  # the roots: their children are P_1 and C_1
        else:
            prev[:] = 0
            for j in range(n2):
                base = ty[y0 + j] * words
                for w in range(words - 1, -1, -1):  # high words first: prev[w - 1] is still the previous column's
                    m = mask[base + w]
                    shifted = prev[w] << one
                    if w > 0:
                        shifted |= prev[w - 1] >> top
                    v = m & ~shifted
                    prev[w] = m
                    while v:
                        i = w * 64 + np.int64(_trailing_zeros(v))
                        v &= v - one
                        r = 1
                        while i + r < n1 and j + r < n2:
                            k = i + r
                            if not (mask[ty[y0 + j + r] * words + k // 64] >> np.uint64(k % 64)) & one:
                                break
                            r += 1
                        kernel, up = _run_sum(fx, x0 + i, fy, y0 + j, r, lam, kernel)
                        if i == 0 and j == 0:
                            kernel += up
        out[b - b0] = kernel


@prange_njit
def _ngtk_tasks(tx, fx, ox, ty, fy, oy, indptr, indices, lam, ta, tb0, tb1, gram):
    """Fill ``gram[ta[k], tb0[k]:tb1[k]]`` for every task ``k``."""
    for k in prange(ta.shape[0]):
        a, b0, b1 = ta[k], tb0[k], tb1[k]
        _ngtk_task(tx, fx, ox, ty, fy, oy, indptr, indices, lam, a, b0, b1, gram[a, b0:b1])


def _tasks(r0, r1, ny, symmetric, size):
    """Tasks ``(a, b0, b1)`` of at most ``size`` pairs for rows ``r0..r1-1`` (``b >= a`` when symmetric)."""
    rows = np.arange(r0, r1, dtype=np.int64)
    starts = rows if symmetric else np.zeros_like(rows)
    counts = -(-(ny - starts) // size)
    ta = np.repeat(rows, counts)
    first = np.repeat(np.cumsum(counts) - counts, counts)
    tb0 = np.repeat(starts, counts) + (np.arange(ta.size, dtype=np.int64) - first) * size
    return ta, tb0, np.minimum(tb0 + size, ny)


def _gram_fast(X, Y, lam, variant, vectors, theta, aspect_x, aspect_y, identical):
    """Gram matrix by :func:`_ngtk_task`, in row batches of the DP's size (one progress step each)."""
    tx, fx, ox = _flat(X, aspect_x)
    symmetric = Y is None
    ty, fy, oy = (tx, fx, ox) if symmetric else _flat(Y, aspect_y)
    kinds, indptr, indices = _type_table(np.concatenate([tx, ty]), variant, vectors, theta, identical)
    tx, ty = kinds[: tx.size], kinds[tx.size :]
    nx, ny = ox.size - 1, oy.size - 1
    gram = np.zeros((nx, ny))
    rows = _agk._rows_per_batch(ny)
    batches = progress(range(0, nx, rows), desc=f"Gram {nx}x{ny}", total=-(-nx // rows), unit="batch")
    with numba.parallel_chunksize(1):
        for r0 in batches:
            ta, tb0, tb1 = _tasks(r0, min(nx, r0 + rows), ny, symmetric, _TASK)
            _ngtk_tasks(tx, fx, ox, ty, fy, oy, indptr, indices, float(lam), ta, tb0, tb1, gram)
    if symmetric:
        _mirror_upper(gram)
    return gram


def _diag_fast(X, lam, variant, vectors, theta, aspect_x, identical):
    """Self-similarities by :func:`_ngtk_task`."""
    tx, fx, ox = _flat(X, aspect_x)
    tx, indptr, indices = _type_table(tx, variant, vectors, theta, identical)
    out = np.zeros(ox.size - 1)
    with numba.parallel_chunksize(64):
        _ngtk_self(tx, fx, ox, indptr, indices, float(lam), out)
    return out


@prange_njit
def _ngtk_self(tx, fx, ox, indptr, indices, lam, out):
    """``out[a] = K(a, a)`` for every sentence ``a``."""
    for a in prange(out.shape[0]):
        _ngtk_task(tx, fx, ox, tx, fx, ox, indptr, indices, lam, a, a, a + 1, out[a : a + 1])


# --------------------------------------------------------------------------- public


def _check(variant, lam, method):
    if variant not in VARIANTS:
        raise ValueError(f"NGTK variant must be one of {VARIANTS}, got {variant!r}")
    if method not in METHODS:
        raise ValueError(f"NGTK method must be one of {METHODS}, got {method!r}")
    if not 0.0 < float(lam) <= 1.0:
        raise ValueError(f"lam must be in (0, 1], got {lam!r}")


def ngtk_gram(
    X, Y=None, *, variant: str, lam: float, vectors=None, theta=None, aspect_x=None, aspect_y=None,
    identical: bool = False, method: str = "auto",
) -> np.ndarray:
    """Gram matrix of the NGTK subset-tree kernel over Figure 1 trees.

    Parameters
    ----------
    X, Y : sequence of array-like of int
        Sentences as token ids; ``Y=None`` compares ``X`` with itself (symmetric).
    variant : {"sm", "west"}
        Exact label match, or the cosine threshold of Eq. 3-4 on word labels.
    lam : float
        Decay factor in (0, 1].
    vectors : array-like of shape (V, d), optional
        Word vectors indexed by id (``west``).
    theta : float, optional
        Cosine threshold (``west``).
    aspect_x, aspect_y : sequence of sequence of int, optional
        Aspect-term masks: ``AT`` replaces ``X`` under those tokens.
    identical : bool, optional
        ``west``: a word label always matches the same word (equal id), before the cosine.
    method : {"auto", "dp"}
        ``"auto"``: the fast path over matching word pairs; ``"dp"``: the subset-tree DP over every
        pair of tree nodes (the reference; same values to round-off).

    Returns
    -------
    ndarray of shape (len(X), len(Y))
    """
    _check(variant, lam, method)
    X = list(X)
    Y = None if Y is None else list(Y)
    if method == "auto":
        return _gram_fast(X, Y, lam, variant, vectors, theta, aspect_x, None if Y is None else aspect_y, identical)
    lx, cx, ox = _forest(X, aspect_x)
    if Y is None:
        ly, cy, oy = lx, cx, ox
    else:
        ly, cy, oy = _forest(Y, aspect_y)
    lx, ly, table = _label_table(lx, ly, variant, vectors, theta, identical)
    use = variant == "west"
    nx, ny = ox.size - 1, oy.size - 1
    return _run_pairs(
        lambda pa, pb, out: _gram_trees(lx, cx, ox, ly, cy, oy, pa, pb, float(lam), table, use, out), nx, ny, Y is None
    )


def ngtk_kernel(
    s1, s2, *, variant: str, lam: float, vectors=None, theta=None, aspect1=None, aspect2=None, identical=False,
    method: str = "auto",
) -> float:
    """NGTK kernel of one sentence pair; arguments as in :func:`ngtk_gram`."""
    return float(
        ngtk_gram(
            [s1], [s2], variant=variant, lam=lam, vectors=vectors, theta=theta,
            aspect_x=None if aspect1 is None else [aspect1], aspect_y=None if aspect2 is None else [aspect2],
            identical=identical, method=method,
        )[0, 0]
    )


def ngtk_diag(
    X, *, variant: str, lam: float, vectors=None, theta=None, aspect_x=None, identical=False, method: str = "auto"
) -> np.ndarray:
    """Self-similarities ``K(x, x)`` of every sentence, for kernel normalisation; arguments as in :func:`ngtk_gram`."""
    _check(variant, lam, method)
    X = list(X)
    if method == "auto":
        return _diag_fast(X, lam, variant, vectors, theta, aspect_x, identical)
    lx, cx, ox = _forest(X, aspect_x)
    lx, _, table = _label_table(lx, lx, variant, vectors, theta, identical)
    idx = np.arange(len(X), dtype=np.int64)
    out = np.zeros(len(X))
    if len(X):
        _gram_trees(lx, cx, ox, lx, cx, ox, idx, idx, float(lam), table, variant == "west", out)
    return out


__all__ = ["anygram_tree", "tree_string", "ngtk_gram", "ngtk_kernel", "ngtk_diag", "ROOT", "X_LEAF", "AT_LEAF"]
