"""The prepared datasets: which raw files each needs, which paper it serves, what task it is."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DatasetSpec:
    """A prepared dataset.

    Attributes
    ----------
    name : str
        Name used in config, file names and tables.
    raw : str
        Name of the raw dataset in :mod:`kernbench.data.registry`.
    paper : str
        Paper (and MLflow experiment) the dataset belongs to.
    task : {"classification", "ranking", "ordinal"}
        Single-label classification scored by accuracy; per-category ranking
        scored by average precision; 1-5 star ordinal regression scored by MAE^M.
    """

    name: str
    raw: str
    paper: str
    task: str


DATASETS: dict[str, DatasetSpec] = {
    spec.name: spec
    for spec in (
        DatasetSpec("semeval14_laptop", "semeval14", "anygram", "classification"),
        DatasetSpec("semeval14_restaurant", "semeval14", "anygram", "classification"),
        DatasetSpec("sst", "sst", "anygram", "classification"),
        DatasetSpec("reuters", "reuters21578", "fisher", "ranking"),
        DatasetSpec("reviews_clothing", "reviews_clothing", "ordinal", "ordinal"),
        DatasetSpec("reviews_hotel", "reviews_hotel", "ordinal", "ordinal"),
    )
}

#: Datasets whose ``tokens`` feed the word-embedding vocabulary.
TOKENISED = ("semeval14_laptop", "semeval14_restaurant", "sst")

#: Baseline systems run on each task.
BASELINE_SYSTEMS = {
    "classification": ("Triv", "BoW-TFIDF"),
    "ranking": ("Triv", "BoW-TFIDF"),
    "ordinal": ("Triv", "Triv-3stars", "BoW-TFIDF"),
}
