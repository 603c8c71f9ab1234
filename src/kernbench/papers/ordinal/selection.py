"""Round-robin selection and reduction levels."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def round_robin(orderings: Sequence[np.ndarray], k: int | None = None) -> np.ndarray:
    """Let several feature orderings take turns picking their best feature not yet picked.

    Turn ``i`` goes to ordering ``i mod m``; an ordering with nothing left
    to pick is skipped, so the result always holds ``k`` distinct features
    while enough exist. Its first ``x`` entries are the paper's selection of
    ``x`` features, every ordering contributing ``x/m`` of them (the first
    ``x mod m`` orderings one more) until one runs out.

    Parameters
    ----------
    orderings : sequence of numpy.ndarray
        Feature indices, best first; they may overlap (RR(IGOR)) or partition
        the features (one per rank).
    k : int, optional
        Number of features to pick (default: every distinct feature).

    Returns
    -------
    numpy.ndarray
        Distinct feature indices in picking order.
    """
    lists = [np.asarray(o, dtype=np.int64) for o in orderings]
    total = len(np.unique(np.concatenate(lists))) if lists else 0
    k = total if k is None else min(int(k), total)
    picked: list[int] = []
    seen: set[int] = set()
    cursor = [0] * len(lists)
    while len(picked) < k:
        for i, order in enumerate(lists):
            while cursor[i] < len(order) and int(order[cursor[i]]) in seen:
                cursor[i] += 1
            if cursor[i] < len(order):
                feature = int(order[cursor[i]])
                seen.add(feature)
                picked.append(feature)
                cursor[i] += 1
                if len(picked) == k:
                    break
    return np.asarray(picked, dtype=np.int64)


def n_selected(xi: float, n_features: int) -> int:
    """Number of features kept at reduction level ``xi = |S| / |T|``: ``round(xi |T|)``, at least 1.

    Halves round up, so the count does not depend on the floating-point
    representation of ``xi`` beyond 1e-9.
    """
    if not 0 < xi <= 1:
        raise ValueError(f"reduction level {xi} is not in (0, 1]")
    return max(1, min(n_features, math.floor(xi * n_features + 0.5 + 1e-9)))


def select(order: np.ndarray, xi: float) -> np.ndarray:
    """The top features of ``order`` at reduction level ``xi``, as sorted column indices."""
    return np.sort(np.asarray(order)[: n_selected(xi, len(order))])
