"""The dataset registry: one entry per built-in corpus, and prepare dispatching through it."""

from __future__ import annotations

import importlib
import inspect

import pandas as pd
import pytest

from kernbench.catalog import Catalog
from kernbench.data.prepare import prepare_dataset
from kernbench.data.registry import BUILTIN_DATASETS, TASKS, DatasetSpec, RawDataset, RawFile
from kernbench.papers import PAPERS


def _parser(spec: DatasetSpec):
    module, _, function = spec.parse.partition(":")
    return getattr(importlib.import_module(module), function)


@pytest.mark.parametrize("name", sorted(BUILTIN_DATASETS))
def test_every_built_in_entry_names_its_paper_task_and_a_parser_of_the_registry_contract(name):
    spec = BUILTIN_DATASETS[name]
    assert spec.name == name == spec.raw.name and spec.builtin
    assert spec.paper in PAPERS and spec.task in TASKS
    assert not spec.tokenised or spec.task == "classification"
    assert bool(spec.categories) == (spec.task == "ranking")
    parameters = inspect.signature(_parser(spec)).parameters
    assert list(parameters) == ["paths", "dev_fraction", "seed"]
    assert [p.kind for p in parameters.values()][1:] == [inspect.Parameter.KEYWORD_ONLY] * 2


def test_the_entries_say_which_datasets_have_tokens_aspect_terms_and_categories():
    tokenised = [n for n, s in BUILTIN_DATASETS.items() if s.tokenised]
    assert tokenised == ["semeval14_laptop", "semeval14_restaurant", "sst"]
    assert [n for n, s in BUILTIN_DATASETS.items() if s.aspect_terms] == ["semeval14_laptop", "semeval14_restaurant"]
    assert BUILTIN_DATASETS["reuters"].categories == (
        "earn", "acq", "money-fx", "grain", "crude", "trade", "interest", "ship", "wheat", "corn"
    )
    assert {n: s.paper for n, s in BUILTIN_DATASETS.items()} == {
        "semeval14_laptop": "anygram", "semeval14_restaurant": "anygram", "sst": "anygram", "reuters": "fisher",
        "reviews_clothing": "ordinal", "reviews_hotel": "ordinal",
    }


CALLS = []


def parse_toy(paths, *, dev_fraction, seed):
    """A toy corpus: one item per line of its two files (train, then test)."""
    CALLS.append((list(paths), dev_fraction, seed))
    rows = [
        {"id": f"{split}-{i}", "split": split, "label": line.split()[0], "text": line}
        for split, path in zip(("train", "test"), paths)
        for i, line in enumerate(path.read_text().splitlines())
    ]
    return pd.DataFrame(rows)


def test_a_corpus_is_its_parser_and_one_registry_entry(tmp_path, monkeypatch):
    """A new corpus registered by one entry is prepared by the parser it names, from its files in order."""
    files = (RawFile("toy/train.txt", 0, "0" * 64), RawFile("toy/test.txt", 0, "0" * 64))
    toy = DatasetSpec("toy", "anygram", "classification", f"{__name__}:parse_toy", RawDataset("toy", "", files),
                      tokenised=True)
    monkeypatch.setitem(BUILTIN_DATASETS, "toy", toy)
    (tmp_path / "toy").mkdir()
    (tmp_path / "toy/train.txt").write_text("pos good\nneg bad\n")
    (tmp_path / "toy/test.txt").write_text("pos fine\n")
    CALLS.clear()

    frame = prepare_dataset("toy", tmp_path, dev_fraction=0.25, seed=7, catalog=Catalog())
    assert CALLS == [([tmp_path / "toy/train.txt", tmp_path / "toy/test.txt"], 0.25, 7)]
    assert list(frame["label"]) == ["pos", "neg", "pos"] and list(frame["split"]) == ["train", "train", "test"]
    assert Catalog().names(tokenised=True)[-1] == "toy"


def test_an_unknown_dataset_is_named_with_the_known_ones(tmp_path):
    with pytest.raises(KeyError, match=r"unknown dataset 'imdb'; known: semeval14_laptop, .*reviews_hotel"):
        prepare_dataset("imdb", tmp_path, dev_fraction=0.1, seed=1, catalog=Catalog())
