"""Raw files to one prepared table per dataset, optionally subsampled for the smoke profile."""

from __future__ import annotations

import importlib
from pathlib import Path

import pandas as pd

from kernbench.catalog import Catalog
from kernbench.catalog import catalog as current_catalog


def prepare_dataset(
    name: str, raw_dir: str | Path, *, dev_fraction: float, seed: int, catalog: Catalog | None = None
) -> pd.DataFrame:
    """Parse the raw files of dataset ``name`` into its prepared table, with the parser its registry entry names.

    Parameters
    ----------
    name : str
        A dataset of ``catalog`` (a built-in dataset or a catalog entry).
    raw_dir : path-like
        Root of the fetched raw files (registry paths below it).
    dev_fraction : float
        Share of the training rows held out as dev where there are no dev rows (SemEval; a catalog file without them).
    seed : int
        Seed of that dev split.
    catalog : Catalog, optional
        The datasets known; by default the one the workflow handed to this job (:func:`kernbench.catalog.catalog`).

    Returns
    -------
    pandas.DataFrame
        At least ``id``, ``split`` and ``label``, plus the dataset's text columns.

    Raises
    ------
    KeyError
        If ``name`` is not a dataset of the catalog.
    """
    spec = (current_catalog() if catalog is None else catalog)[name]
    module, _, function = spec.parse.partition(":")
    parse = getattr(importlib.import_module(module), function)
    return parse([Path(raw_dir) / f.path for f in spec.raw.files], dev_fraction=dev_fraction, seed=seed)


def subsample(frame: pd.DataFrame, sizes: dict[str, int], *, seed: int) -> pd.DataFrame:
    """Keep at most ``sizes[split]`` seeded random rows of each split, in their original order.

    Parameters
    ----------
    frame : pandas.DataFrame
        Prepared table with a ``split`` column.
    sizes : dict
        Maximum rows per split; splits not named are kept whole.
    seed : int
        Seed of the sample.

    Returns
    -------
    pandas.DataFrame
        The subsample, index reset.
    """
    parts = []
    for split, part in frame.groupby("split", sort=False):
        limit = sizes.get(split)
        parts.append(part if limit is None or len(part) <= limit else part.sample(n=limit, random_state=seed))
    return pd.concat(parts).sort_index().reset_index(drop=True)
