"""Raw files to one prepared table per dataset, optionally subsampled for the smoke profile."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from kernbench.catalog import BUILTIN_DATASETS, DATASETS
from kernbench.data import reuters, reviews, semeval14, sst, user_table
from kernbench.data.registry import RAW_DATASETS

_SEMEVAL_FILES = {
    "semeval14_laptop": ("Laptop_Train_v2.xml", "Laptops_Test_Gold.xml"),
    "semeval14_restaurant": ("Restaurants_Train_v2.xml", "Restaurants_Test_Gold.xml"),
}
_REVIEW_DIRS = {
    "reviews_clothing": "reviews/womens-clothing-ecommerce-reviews",
    "reviews_hotel": "reviews/tripadvisor-wang2011-sample5000",
}


def prepare_dataset(name: str, raw_dir: str | Path, *, dev_fraction: float, seed: int) -> pd.DataFrame:
    """Parse the raw files of dataset ``name`` into its prepared table.

    Parameters
    ----------
    name : str
        A name from :data:`kernbench.catalog.DATASETS` (a built-in dataset or a catalog entry).
    raw_dir : path-like
        Root of the fetched raw files (registry paths below it).
    dev_fraction : float
        Share of the training rows held out as dev where there are no dev rows (SemEval; a catalog file without them).
    seed : int
        Seed of that dev split.

    Returns
    -------
    pandas.DataFrame
        At least ``id``, ``split`` and ``label``, plus the dataset's text columns.
    """
    raw = Path(raw_dir)
    if name in DATASETS and name not in BUILTIN_DATASETS:
        (entry,) = RAW_DATASETS[DATASETS[name].raw].files
        return user_table.prepare(raw / entry.path, dev_fraction=dev_fraction, seed=seed)
    if name in _SEMEVAL_FILES:
        train, test = _SEMEVAL_FILES[name]
        return semeval14.prepare(
            raw / "semeval14" / train, raw / "semeval14" / test, dev_fraction=dev_fraction, seed=seed
        )
    if name == "sst":
        return sst.prepare(raw / "sst/train.txt", raw / "sst/dev.txt", raw / "sst/test.txt")
    if name == "reuters":
        return reuters.prepare(sorted((raw / "reuters21578").glob("reut2-*.sgm")))
    if name == "reviews_clothing":
        folder = raw / _REVIEW_DIRS[name]
        return reviews.prepare_clothing(folder / "womens_clothing_ecommerce_reviews.csv", folder / "split_suggested.tsv")
    if name == "reviews_hotel":
        folder = raw / _REVIEW_DIRS[name]
        return reviews.prepare_hotel(folder / "reviews.jsonl", folder / "split_suggested.tsv")
    raise ValueError(f"unknown dataset {name!r}")


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
