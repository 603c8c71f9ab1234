"""The prepared datasets: which raw files each needs, which paper it serves, what task it is.

The built-in datasets are listed here; the config's ``catalog`` section adds
datasets of the user's own (:mod:`kernbench.catalog_config`), which
:func:`add_catalog` puts beside them when the workflow starts and when one of
its jobs imports this module.
"""

from __future__ import annotations

from dataclasses import dataclass

from kernbench.catalog_config import from_environment


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


#: The datasets kernbench ships with.
BUILTIN_DATASETS: dict[str, DatasetSpec] = {
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

#: Every dataset: the built-in ones, then the catalog's.
DATASETS: dict[str, DatasetSpec] = dict(BUILTIN_DATASETS)

#: Built-in datasets with ``tokens``; they make the vocabulary of the shared word-embedding file.
BUILTIN_TOKENISED = ("semeval14_laptop", "semeval14_restaurant", "sst")

#: Every dataset with ``tokens`` (the any-gram kernels and LSTMs run on these): the built-in ones, then the catalog's.
TOKENISED = BUILTIN_TOKENISED

#: Baseline systems run on each task.
BASELINE_SYSTEMS = {
    "classification": ("Triv", "BoW-TFIDF"),
    "ranking": ("Triv", "BoW-TFIDF"),
    "ordinal": ("Triv", "Triv-3stars", "BoW-TFIDF"),
}


def add_catalog(entries) -> None:
    """Put the catalog's datasets beside the built-in ones, replacing those added before.

    Parameters
    ----------
    entries : dict
        ``{name: kernbench.catalog_config.CatalogEntry}``.
    """
    global TOKENISED
    for name in [n for n in DATASETS if n not in BUILTIN_DATASETS]:
        del DATASETS[name]
    DATASETS.update({e.name: DatasetSpec(e.name, e.raw, e.paper, e.task) for e in entries.values()})
    TOKENISED = BUILTIN_TOKENISED + tuple(e.name for e in entries.values() if e.task == "classification")


add_catalog(from_environment())
