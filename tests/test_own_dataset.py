"""A dataset of the user's own: the file reader, the config's `catalog` section, and workflow runs on them.

A classification corpus joins the any-gram systems, a rated (1-5) corpus the ordinal paper's methods and a
multi-label corpus the Fisher systems, each through the config alone.
"""

from __future__ import annotations

import csv
import hashlib
import subprocess
import sys
from collections import Counter

import pandas as pd
import pytest
import yaml

from kernbench.catalog import Catalog, catalog, papers_of_tasks
from kernbench.catalog_config import ENV_VAR, CatalogEntry
from kernbench.papers.anygram.lstm import lstm_hyperparameters
from kernbench.config_check import ConfigError
from kernbench.data import registry, user_table
from kernbench.papers import PAPERS
from kernbench.data.fetch import fetch_dataset
from kernbench.data.semeval14 import tokenize
from kernbench.errors import DataError, FetchError
from tests.conftest import REPO_ROOT, SNAKEMAKE, run_snakemake

# Sentiment words GloVe knows, so the kernels and LSTMs see real vectors.
WORDS = {
    "pos": ["good", "great", "lovely", "fine", "superb", "pleasant"],
    "neg": ["bad", "awful", "poor", "terrible", "dull", "boring"],
    "neu": ["okay", "plain", "average", "usual", "normal", "ordinary"],
}
# Labels per split: pos is the training majority but not the test one, so Triv's test accuracy is the test share
# of pos (5 of 14), not the test majority share (6 of 14) nor a training share.
SPLIT_LABELS = {
    "train": ["pos"] * 14 + ["neg"] * 9 + ["neu"] * 7,
    "dev": ["pos"] * 4 + ["neg"] * 4 + ["neu"] * 2,
    "test": ["neg"] * 6 + ["pos"] * 5 + ["neu"] * 3,
}


def toy_rows():
    """A few dozen labelled sentences, splits interleaved as a user's file may have them."""
    rows = []
    for split, labels in SPLIT_LABELS.items():
        for i, label in enumerate(labels):
            words = WORDS[label]
            text = f"The film was {words[i % 6]} and {words[(i + 1) % 6]}."
            rows.append({"text": text, "label": label, "split": split})
    return rows[::2] + rows[1::2]


def write_csv(path, rows, columns=("text", "label", "split")):
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(columns), extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return path


def sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def clean_catalog(monkeypatch):
    """No catalog in this process's environment, whatever the test puts there."""
    monkeypatch.delenv(ENV_VAR, raising=False)


def parse_catalog(section, *, base_dir):
    """The entries of a config's ``catalog`` section, checked as the workflow checks them."""
    return Catalog.from_config(section, base_dir=base_dir, papers_of_tasks=papers_of_tasks(PAPERS)).entries


# The reader


def test_csv_without_tokens_is_tokenised_like_semeval_and_keeps_file_order_per_split(tmp_path):
    rows = toy_rows()
    frame = user_table.prepare(write_csv(tmp_path / "toy.csv", rows), dev_fraction=0.1, seed=1)
    assert list(frame.columns) == ["id", "split", "label", "text", "tokens"]
    assert frame["split"].value_counts().to_dict() == {s: len(v) for s, v in SPLIT_LABELS.items()}
    assert list(frame["split"].drop_duplicates()) == ["train", "dev", "test"]
    for split in SPLIT_LABELS:  # each split in file order, with its labels and the text's own tokens
        part = frame[frame["split"] == split]
        expected = [r for r in rows if r["split"] == split]
        assert list(part["text"]) == [r["text"] for r in expected]
        assert list(part["label"]) == [r["label"] for r in expected]
    assert [list(t) for t in frame["tokens"]] == [tokenize(t)[0] for t in frame["text"]]
    assert frame["tokens"].iloc[0][-1] == "."
    assert frame["id"].is_unique and set(frame["id"]) == {f"row-{i}" for i in range(1, len(rows) + 1)}


def test_csv_tokens_column_is_split_on_whitespace_and_used_as_given(tmp_path):
    rows = [{**r, "tokens": r["text"].lower().replace(".", " .")} for r in toy_rows()]
    frame = user_table.prepare(write_csv(tmp_path / "toy.csv", rows, ("text", "label", "split", "tokens")),
                               dev_fraction=0.1, seed=1)
    assert list(frame["tokens"].iloc[0][:3]) == ["the", "film", "was"]
    assert all(t == t.lower() for toks in frame["tokens"] for t in toks)


def test_parquet_with_and_without_a_tokens_list_column(tmp_path):
    rows = toy_rows()
    n = len(rows)
    given = pd.DataFrame(rows).assign(tokens=[["x", str(i)] for i in range(n)], id=[f"r{i}" for i in range(n)])
    given.to_parquet(tmp_path / "with.parquet")
    frame = user_table.prepare(tmp_path / "with.parquet", dev_fraction=0.1, seed=1)
    assert {tuple(t) for t in frame["tokens"]} == {("x", str(i)) for i in range(n)}
    assert dict(zip(frame["id"], frame["text"])) == {f"r{i}": r["text"] for i, r in enumerate(rows)}

    pd.DataFrame(rows).to_parquet(tmp_path / "without.parquet")
    frame = user_table.prepare(tmp_path / "without.parquet", dev_fraction=0.1, seed=1)
    assert [list(t) for t in frame["tokens"]] == [tokenize(t)[0] for t in frame["text"]]


def test_integer_labels_are_integers(tmp_path):
    rows = [{**r, "label": {"neg": 0, "neu": 1, "pos": 2}[r["label"]]} for r in toy_rows()]
    frame = user_table.prepare(write_csv(tmp_path / "toy.csv", rows), dev_fraction=0.1, seed=1)
    assert frame["label"].dtype == "int64" and set(frame["label"]) == {0, 1, 2}


def test_without_dev_rows_a_seeded_stratified_share_of_train_is_held_out(tmp_path):
    rows = [r for r in toy_rows() if r["split"] != "dev"]
    path = write_csv(tmp_path / "toy.csv", rows)
    frame = user_table.prepare(path, dev_fraction=0.2, seed=7)
    counts = frame["split"].value_counts().to_dict()
    assert counts["test"] == len(SPLIT_LABELS["test"])
    assert counts["train"] + counts["dev"] == len(SPLIT_LABELS["train"])
    assert counts["dev"] == pytest.approx(0.2 * len(SPLIT_LABELS["train"]), abs=1)
    assert set(frame.loc[frame["split"] == "dev", "label"]) == {"pos", "neg", "neu"}  # stratified
    again = user_table.prepare(path, dev_fraction=0.2, seed=7)
    other = user_table.prepare(path, dev_fraction=0.2, seed=8)
    dev = lambda f: set(f.loc[f["split"] == "dev", "id"])  # noqa: E731
    assert dev(again) == dev(frame) and dev(other) != dev(frame)


def test_missing_column_is_named_with_the_file(tmp_path):
    path = write_csv(tmp_path / "toy.csv", toy_rows(), ("text", "split"))
    with pytest.raises(DataError, match=r"toy\.csv: no column 'label'.*the file has 'text', 'split'"):
        user_table.prepare(path, dev_fraction=0.1, seed=1)


def test_bad_split_value_is_named_with_file_and_line(tmp_path):
    rows = toy_rows()
    rows[3] = {**rows[3], "split": "validation"}
    path = write_csv(tmp_path / "toy.csv", rows)
    with pytest.raises(DataError, match=r"toy\.csv: line 5: split 'validation' is not one of train, dev, test"):
        user_table.prepare(path, dev_fraction=0.1, seed=1)


def test_bad_rows_are_named(tmp_path):
    rows = toy_rows()
    cases = [
        ({**rows[0], "label": " "}, r"line 2: empty label"),
        ({**rows[0], "text": "   "}, r"line 2: no tokens \(empty text\)"),
    ]
    for bad, message in cases:
        path = write_csv(tmp_path / "bad.csv", [bad, *rows[1:]])
        with pytest.raises(DataError, match=rf"bad\.csv: {message}"):
            user_table.prepare(path, dev_fraction=0.1, seed=1)
    path = write_csv(tmp_path / "ids.csv", [{**r, "id": "same"} for r in rows], ("id", "text", "label", "split"))
    with pytest.raises(DataError, match=r"ids\.csv: line 3: id 'same' repeats that of line 2"):
        user_table.prepare(path, dev_fraction=0.1, seed=1)
    path = write_csv(tmp_path / "notest.csv", [r for r in rows if r["split"] != "test"])
    with pytest.raises(DataError, match=r"notest\.csv: no test rows"):
        user_table.prepare(path, dev_fraction=0.1, seed=1)
    pd.DataFrame(rows).assign(label=0.5).to_parquet(tmp_path / "float.parquet")
    with pytest.raises(DataError, match=r"float\.parquet: column 'label' holds float values"):
        user_table.prepare(tmp_path / "float.parquet", dev_fraction=0.1, seed=1)


# The config's catalog section


def _entry(path="data/mine.csv", **extra):
    return {"path": path, "sha256": "0" * 64, **extra}


def test_catalog_entries_resolve_paths_against_the_working_directory(tmp_path):
    entries = parse_catalog({"mine": _entry()}, base_dir=tmp_path)
    path = str(tmp_path / "data/mine.csv")
    assert entries == {"mine": CatalogEntry("mine", path, "0" * 64, "classification", "anygram")}
    assert entries["mine"].raw_path == "catalog/mine.csv"


def test_each_task_is_filed_under_the_paper_whose_systems_run_it(tmp_path):
    section = {"a": _entry(), "b": _entry(task="ordinal"), "c": _entry(task="ranking", categories=["x", "y-1"])}
    entries = parse_catalog(section, base_dir=tmp_path)
    assert {n: (e.task, e.paper, e.categories) for n, e in entries.items()} == {
        "a": ("classification", "anygram", ()),
        "b": ("ordinal", "ordinal", ()),
        "c": ("ranking", "fisher", ("x", "y-1")),
    }
    assert papers_of_tasks(PAPERS) == {"classification": "anygram", "ranking": "fisher", "ordinal": "ordinal"}


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ({"sst": _entry()}, r"catalog\.sst: 'sst' is a built-in dataset"),
        ({"earn": _entry()}, r"catalog\.earn: 'earn' is a built-in dataset or Reuters category"),
        ({"My-Set": _entry()}, r"catalog\.My-Set: a dataset name is lower-case"),
        ({"mine": _entry("mine.txt")}, r"catalog\.mine\.path='mine\.txt' is neither"),
        ({"mine": {"path": "mine.csv", "sha256": "abc"}}, r"catalog\.mine\.sha256='abc'.*sha256sum mine\.csv"),
        ({"mine": _entry(task="regression")}, r"catalog\.mine\.task='regression' is not one of classification"),
        ({"mine": _entry(task="ranking")}, r"catalog\.mine\.categories is missing: task ranking needs"),
        ({"mine": _entry(task="ranking", categories=[])}, r"catalog\.mine\.categories is missing"),
        ({"mine": _entry(task="ranking", categories=["a b"])}, r"catalog\.mine\.categories: 'a b' is not a category"),
        ({"mine": _entry(task="ranking", categories=["a", "a"])}, r"catalog\.mine\.categories lists 'a' more than"),
        ({"mine": _entry(categories=["a"])}, r"catalog\.mine\.categories is for task ranking; this entry's task is cl"),
    ],
)
def test_bad_catalog_entries_are_refused_naming_the_key(tmp_path, section, message):
    with pytest.raises(ConfigError, match=message):
        parse_catalog(section, base_dir=tmp_path)


def test_the_catalog_names_the_datasets_each_config_list_may_take(tmp_path):
    section = {"mine": _entry(), "rated": _entry(task="ordinal"), "news": _entry(task="ranking", categories=["x"])}
    cat = Catalog.from_config(section, base_dir=tmp_path, papers_of_tasks=papers_of_tasks(PAPERS))
    builtin = ["semeval14_laptop", "semeval14_restaurant", "sst", "reuters", "reviews_clothing", "reviews_hotel"]
    assert list(cat) == [*builtin, "mine", "rated", "news"]
    assert cat.names(tokenised=True) == ["semeval14_laptop", "semeval14_restaurant", "sst", "mine"]
    assert cat.tokenised == ("semeval14_laptop", "semeval14_restaurant", "sst", "mine")
    assert cat.names(task="ordinal") == ["reviews_clothing", "reviews_hotel", "rated"]
    assert cat.names(task="ranking", builtin=False) == ["news"]
    assert cat.names(aspect_terms=True) == ["semeval14_laptop", "semeval14_restaurant"]
    assert cat["news"].cell("x") == "news/x" and cat["reuters"].cell("earn") == "earn"
    assert cat["rated"].parse == "kernbench.data.user_table:parse_ordinal" and cat["rated"].paper == "ordinal"
    with pytest.raises(KeyError, match=r"unknown dataset 'theirs'; known: semeval14_laptop, .*, news"):
        cat["theirs"]


def test_lstm_settings_of_a_catalog_dataset_default_to_sst_per_system():
    config = yaml.safe_load((REPO_ROOT / "config.yaml").read_text())
    bi = {"batch_size": 8, "layers": 1, "hidden_size": 4, "learning_rate": 0.01, "dropout": 0.0}
    config["catalog"] = {"mine": _entry(lstm={"BiLSTM": bi})}
    table = lstm_hyperparameters(config)
    assert table["mine"] == {"UniLSTM": config["lstm"]["hyperparameters"]["sst"]["UniLSTM"], "BiLSTM": bi}
    assert {k: v for k, v in table.items() if k != "mine"} == config["lstm"]["hyperparameters"]


def test_the_catalog_reaches_the_jobs_through_the_environment(tmp_path, clean_catalog, monkeypatch):
    path = write_csv(tmp_path / "toy.csv", toy_rows())
    cat = Catalog.from_config(
        {"toy": {"path": str(path), "sha256": sha256(path)}}, base_dir=tmp_path, papers_of_tasks=papers_of_tasks(PAPERS)
    )
    assert "toy" not in catalog()  # read when called: nothing in this environment yet
    monkeypatch.setenv(ENV_VAR, cat.to_environment())
    assert catalog().entries == cat.entries and catalog()["toy"] == registry.catalog_dataset(cat.entries["toy"])

    # A job started by the workflow: fetch and prepare read the entry from the environment.
    raw, out = tmp_path / "raw", tmp_path / "prepared/toy.parquet"
    for args in (["fetch", "toy", "--mirror", str(tmp_path / "none"), "--raw-dir", str(raw), "--no-download"],
                 ["prepare", "toy", "--raw-dir", str(raw), "--out", str(out), "--dev-fraction", "0.1", "--seed", "1"]):
        result = subprocess.run([sys.executable, "-m", "kernbench.cli", *args], capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
    assert sha256(raw / "catalog/toy.csv") == sha256(path)
    assert pd.read_parquet(out)["split"].value_counts().to_dict() == {s: len(v) for s, v in SPLIT_LABELS.items()}

    monkeypatch.setenv(ENV_VAR, "")
    assert "toy" not in catalog()
    with pytest.raises(KeyError, match="unknown dataset 'toy'"):
        registry.raw_dataset("toy")


def test_a_changed_or_missing_file_stops_the_fetch_naming_the_config_key(tmp_path):
    path = write_csv(tmp_path / "toy.csv", toy_rows())
    digest = sha256(path)
    environ = {ENV_VAR: Catalog(parse_catalog({"toy": {"path": str(path), "sha256": digest}}, base_dir=tmp_path))
               .to_environment()}
    raw = registry.raw_dataset("toy", environ)
    fetched = fetch_dataset(raw, mirror=tmp_path / "none", dest_dir=tmp_path / "raw")
    assert fetched == [tmp_path / "raw/catalog/toy.csv"]

    with open(path, "a", encoding="utf-8") as handle:
        handle.write("One more line.,pos,train\n")
    changed = rf"toy\.csv: sha256 {sha256(path)}, expected {digest}\. .*catalog\.toy\.sha256"
    with pytest.raises(DataError, match=changed):
        fetch_dataset(raw, mirror=tmp_path / "none", dest_dir=tmp_path / "raw2")
    assert not (tmp_path / "raw2/catalog/toy.csv").exists()
    path.unlink()
    with pytest.raises(FetchError, match=r"toy\.csv: no such file\. .*catalog\.toy\.path"):
        fetch_dataset(raw, mirror=tmp_path / "none", dest_dir=tmp_path / "raw2")


# The workflow


@pytest.mark.slow
def test_catalog_dataset_runs_baselines_kernels_and_lstm_into_the_tables(tmp_path):
    rows = toy_rows()
    data = write_csv(tmp_path / "my reviews.csv", rows)
    results = tmp_path / "results"
    partial = {
        "results_dir": str(results),
        "catalog": {"toy": {"path": str(data), "sha256": sha256(data)}},
        "datasets": ["toy"],
        "tables": ["baselines", "anygram"],
        "baselines": {"C": [1.0]},
        "anygram": {"agk_datasets": ["toy"], "ngtk_datasets": [], "agk_systems": ["AGKsm"], "C": [1.0],
                    "normalize": [True]},
        "lstm": {"datasets": ["toy"], "systems": ["UniLSTM"], "seeds": [1], "max_epochs": 2, "patience": 1,
                 "max_hidden_size": 8, "sensitivity_datasets": []},
        "uncertainty": {"resamples": 100},
    }
    config = tmp_path / "own.yaml"
    config.write_text(yaml.safe_dump(partial))
    targets = [str(results / f"tables/{t}.csv") for t in ("baselines", "anygram")]
    run = run_snakemake(
        [*SNAKEMAKE, "--cores", "2", "--configfile", str(config), "--", *targets],
        cwd=REPO_ROOT,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]

    # Only this dataset was prepared, with the file's rows by split, from a copy with the configured digest.
    assert sorted(p.name for p in (results / "prepared").iterdir()) == ["toy.embeddings_glove6b50d.npz", "toy.parquet"]
    prepared = pd.read_parquet(results / "prepared/toy.parquet")
    assert prepared["split"].value_counts().to_dict() == dict(Counter(r["split"] for r in rows))
    assert sha256(results / "raw/catalog/toy.csv") == sha256(data)

    baselines = pd.read_csv(results / "tables/baselines.csv")
    anygram = pd.read_csv(results / "tables/anygram.csv")
    for table, systems in ((baselines, {"Triv", "BoW-TFIDF"}), (anygram, {"AGKsm", "UniLSTM"})):
        assert set(table["dataset"]) == {"toy"} and set(table["system"]) == systems
        assert set(table["split"]) == {"dev", "test"} and table["paper_value"].isna().all()
        assert set(table["paper"]) == {"anygram"}

    def cell(table, system, split):
        return table.set_index(["system", "split", "metric"]).loc[(system, split, "accuracy"), "value"]

    # Triv predicts the training majority: its accuracy is that label's share of each split.
    majority = Counter(r["label"] for r in rows if r["split"] == "train").most_common(1)[0][0]
    for split in ("dev", "test"):
        labels = [r["label"] for r in rows if r["split"] == split]
        assert cell(baselines, "Triv", split) == pytest.approx(100 * labels.count(majority) / len(labels), abs=1e-3)
    assert cell(baselines, "Triv", "test") == pytest.approx(100 * 5 / 14, abs=1e-3)
    # The sentiment words separate the labels, for systems that see the right tokens with the right labels.
    assert cell(baselines, "BoW-TFIDF", "test") > 90 and cell(anygram, "AGKsm", "test") > 90
    assert anygram.loc[anygram["system"] == "UniLSTM", "n_seeds"].eq(1).all()
