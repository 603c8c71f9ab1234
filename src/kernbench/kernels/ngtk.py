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
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from kernbench.kernels.anygram import _run_pairs, _unit_rows, match_table

ROOT, X_LEAF, AT_LEAF = -1, -2, -3
VARIANTS = ("sm", "west")


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


@njit(cache=True, parallel=True)
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


def ngtk_gram(
    X, Y=None, *, variant: str, lam: float, vectors=None, theta=None, aspect_x=None, aspect_y=None,
    identical: bool = False,
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

    Returns
    -------
    ndarray of shape (len(X), len(Y))
    """
    if variant not in VARIANTS:
        raise ValueError(f"NGTK variant must be one of {VARIANTS}, got {variant!r}")
    if not 0.0 < float(lam) <= 1.0:
        raise ValueError(f"lam must be in (0, 1], got {lam!r}")
    X = list(X)
    lx, cx, ox = _forest(X, aspect_x)
    if Y is None:
        ly, cy, oy = lx, cx, ox
    else:
        Y = list(Y)
        ly, cy, oy = _forest(Y, aspect_y)
    lx, ly, table = _label_table(lx, ly, variant, vectors, theta, identical)
    use = variant == "west"
    nx, ny = ox.size - 1, oy.size - 1
    return _run_pairs(
        lambda pa, pb, out: _gram_trees(lx, cx, ox, ly, cy, oy, pa, pb, float(lam), table, use, out), nx, ny, Y is None
    )


def ngtk_kernel(s1, s2, *, variant: str, lam: float, vectors=None, theta=None, aspect1=None, aspect2=None) -> float:
    """NGTK kernel of one sentence pair; arguments as in :func:`ngtk_gram`."""
    return float(
        ngtk_gram(
            [s1], [s2], variant=variant, lam=lam, vectors=vectors, theta=theta,
            aspect_x=None if aspect1 is None else [aspect1], aspect_y=None if aspect2 is None else [aspect2],
        )[0, 0]
    )


def ngtk_diag(X, *, variant: str, lam: float, vectors=None, theta=None, aspect_x=None, identical=False) -> np.ndarray:
    """Self-similarities ``K(x, x)`` of every sentence, for kernel normalisation."""
    X = list(X)
    lx, cx, ox = _forest(X, aspect_x)
    lx, _, table = _label_table(lx, lx, variant, vectors, theta, identical)
    idx = np.arange(len(X), dtype=np.int64)
    out = np.zeros(len(X))
    if len(X):
        _gram_trees(lx, cx, ox, lx, cx, ox, idx, idx, float(lam), table, variant == "west", out)
    return out


__all__ = ["anygram_tree", "ngtk_gram", "ngtk_kernel", "ngtk_diag", "ROOT", "X_LEAF", "AT_LEAF"]
