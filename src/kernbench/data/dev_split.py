"""The dev rows held out of a training file: one seeded, stratified fold, used by every dataset that has no dev split."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from kernbench.errors import DataError


def hold_out_dev(
    labels, *, dev_fraction: float, seed: int, path: str | os.PathLike, groups=None, group_name: str = "groups"
) -> np.ndarray:
    """Boolean mask of the training rows held out as dev: the first of ``round(1 / dev_fraction)`` stratified folds.

    Parameters
    ----------
    labels : array-like
        Labels of the training rows.
    dev_fraction : float
        Approximate share held out, in (0, 0.5].
    seed : int
        Seed of the fold shuffling.
    path : path-like
        Named in errors.
    groups : array-like, optional
        Rows of one group (for example the aspect terms of one sentence) go to dev
        together (``StratifiedGroupKFold``); without groups, each row on its own
        (``StratifiedKFold``).
    group_name : str, optional
        What a group is, as errors name it (``"sentences with aspect terms"``).

    Returns
    -------
    numpy.ndarray of bool

    Raises
    ------
    ValueError
        If ``dev_fraction`` is outside (0, 1) or gives fewer than 2 folds.
    DataError
        If the training rows (or groups) are too few for the folds.
    """
    # Here, not at the top: the catalog imports every parser, and so every job, most of which never split.
    from sklearn.model_selection import StratifiedGroupKFold, StratifiedKFold

    if not 0.0 < dev_fraction < 1.0:
        raise ValueError(f"dev_fraction must be in (0, 1), got {dev_fraction}")
    n_splits = round(1.0 / dev_fraction)
    if n_splits < 2:
        raise ValueError(f"dev_fraction={dev_fraction} is too large: it gives fewer than 2 folds")
    labels = np.asarray(labels)
    if groups is None:
        counts = pd.Series(labels).value_counts()
        if len(labels) < n_splits or counts.max() < n_splits:
            raise DataError(
                f"{path}: no dev rows, and the {len(labels)} training rows (largest label {counts.max()} rows) are too "
                f"few to hold out dev_fraction={dev_fraction} ({n_splits} folds); add dev rows to the file"
            )
        folds = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=seed).split(np.zeros(len(labels)), labels)
    else:
        groups = np.asarray(groups)
        n_groups = len(pd.unique(groups))
        if n_groups < n_splits:
            raise DataError(f"{path}: {n_groups} {group_name} are too few for {n_splits} folds")
        splitter = StratifiedGroupKFold(n_splits=n_splits, shuffle=True, random_state=seed)
        folds = splitter.split(np.zeros(len(labels)), labels, groups=groups)
    _, dev_index = next(folds)
    mask = np.zeros(len(labels), dtype=bool)
    mask[dev_index] = True
    return mask
