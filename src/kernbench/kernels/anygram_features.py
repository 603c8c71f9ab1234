"""Explicit feature maps of the any-gram kernels ``sm`` and ``wess``, for training without a Gram matrix.

Both kernels are inner products of finite maps (see :mod:`kernbench.kernels.anygram`):

* ``sm``: one column per contiguous n-gram ``u``, value ``lam**(|u|/2) * count(u)``;
* ``wess``: one column per (position ``m``, dimension ``k``), value
  ``lam**((m+1)/2) * (sum_{p>=m} e_p)[k]`` over the sentence's unit token vectors.

So ``phi(X) @ phi(Y).T`` is the Gram matrix, and a linear model on ``phi`` is the
kernel machine on ``K`` without the ``N x N`` matrix. The maps are sparse: a
sentence of ``L`` tokens has ``L (L + 1) / 2`` n-grams and ``L * d`` suffix-sum
entries; an sm map of more than :data:`PRIMAL_SM_NGRAMS` n-grams is refused.
"""

from __future__ import annotations

from typing import Sequence

import numba
import numpy as np
import scipy.sparse as sp

from kernbench.kernels._prange import prange_njit
from kernbench.kernels.anygram import _check, _flat_identity, _flat_ids, _flat_units, _identity_maps, _ngram_maps

PRIMAL_VARIANTS = ("sm", "wess")
#: n-grams of the largest sm map built (about 100 bytes each at the peak: 4 GB, half the primal job's memory).
PRIMAL_SM_NGRAMS = 40_000_000


@prange_njit
def _suffix_entries(units, offsets, lam, indptr, indices, data):
    """CSR entries of the wess map: row ``a`` holds positions ``m < L_a``, ``d`` columns each."""
    d = units.shape[1]
    for a in numba.prange(offsets.shape[0] - 1):
        acc = np.zeros(d)
        q = indptr[a]
        for m in range(offsets[a + 1] - offsets[a] - 1, -1, -1):
            acc += units[offsets[a] + m]
            w = np.sqrt(lam ** (m + 1))
            for k in range(d):
                indices[q + m * d + k] = m * d + k
                data[q + m * d + k] = w * acc[k]


def _check_map_size(lengths: np.ndarray) -> None:
    """Refuse an sm map of more than ``PRIMAL_SM_NGRAMS`` n-grams before building it."""
    ngrams = int((lengths * (lengths + 1) // 2).sum())
    if ngrams > PRIMAL_SM_NGRAMS:
        longest = int(np.argmax(lengths))
        raise ValueError(
            f"anygram_features: the sm feature map of these {lengths.size} sentences holds {ngrams:,} n-grams "
            f"(L (L + 1) / 2 for a sentence of L tokens; sentence {longest} has {int(lengths[longest]):,} tokens), "
            f"more than {PRIMAL_SM_NGRAMS:,} (about 100 bytes each): use the Gram matrix "
            "(anygram_gram; config anygram.training: precomputed), which compares long sentences by the DP"
        )


def anygram_features(X: Sequence, *, variant: str, lam: float, vectors=None, identity=None) -> sp.csr_matrix:
    """Explicit feature map of the ``sm`` or ``wess`` any-gram kernel.

    Columns are shared by all rows of one call, so map every split of a dataset
    in one call and slice the rows: ``phi[i] @ phi[j].T`` is ``K(X[i], X[j])``.

    Parameters
    ----------
    X : sequence of array-like
        Sentences as in :func:`kernbench.kernels.anygram.anygram_kernel`.
    variant : {"sm", "wess"}
        Kernel variant (``west`` has no finite map: its match is not transitive).
    lam : float
        Decay factor in (0, 1].
    vectors : array-like of shape (V, d), optional
        Token vectors indexed by id (``wess``).
    identity : sequence of array-like, optional
        ``wess``: identity ids of the tokens, as in :func:`kernbench.kernels.anygram.anygram_gram`;
        their map is appended as further columns.

    Returns
    -------
    scipy.sparse.csr_matrix of shape (len(X), n_features)

    Raises
    ------
    ValueError
        If the ``sm`` map would hold more than :data:`PRIMAL_SM_NGRAMS` n-grams.
    """
    if variant not in PRIMAL_VARIANTS:
        raise ValueError(f"explicit feature maps exist for {PRIMAL_VARIANTS}, not {variant!r}")
    _check(variant, lam, None)
    X = list(X)
    if variant == "sm":
        tokens, offsets = _flat_ids(X)
        _check_map_size(np.diff(offsets))
        return _ngram_maps(tokens, offsets, float(lam))
    units, offsets = _flat_units(X, vectors)
    lengths = np.diff(offsets)
    d = units.shape[1]
    indptr = np.zeros(len(X) + 1, dtype=np.int64)
    indptr[1:] = np.cumsum(lengths * d)
    indices = np.empty(indptr[-1], dtype=np.int64)
    data = np.empty(indptr[-1])
    _suffix_entries(units, offsets, float(lam), indptr, indices, data)
    width = max(int(lengths.max()) if lengths.size else 0, 1) * d
    phi = sp.csr_matrix((data, indices, indptr), shape=(len(X), width))
    if identity is None:
        return phi
    ids = _flat_identity(identity, offsets)
    extra, _ = _identity_maps(units, offsets, ids, units, offsets, ids, lam)
    return sp.hstack([phi, extra], format="csr")
