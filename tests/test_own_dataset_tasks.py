"""Datasets of the user's own for the ordinal and the Fisher paper: a rated (1-5) corpus and a multi-label one.

The reader tests check what a label is per task; the workflow tests run each corpus through the config alone
(a ``catalog`` entry and the dataset lists) into a results directory of their own.
"""

from __future__ import annotations

import hashlib
import json
import sys

import numpy as np
import pandas as pd
import pytest
import yaml
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics import average_precision_score
from sklearn.svm import SVC

from kernbench.data import user_table
from kernbench.errors import DataError
from kernbench.papers.fisher import plan as fisher_plan
from kernbench.papers.ordinal import SLUGS
from kernbench.papers.ordinal import plan as ordinal_plan
from tests.conftest import REPO_ROOT, SNAKEMAKE, run_snakemake

# Words of each rating, none an English stop word: the ordinal protocol removes those.
RATING_WORDS = {
    1: ["awful", "horrible"],
    2: ["poor", "mediocre"],
    3: ["average", "decent"],
    4: ["good", "nice"],
    5: ["superb", "excellent"],
}
RATED_SPLITS = {"train": 8, "dev": 3, "test": 3}  # reviews per rating and split


def rated_rows():
    """Reviews rated 1-5, each rating's two words in its text, splits interleaved."""
    rows = []
    for split, n in RATED_SPLITS.items():
        for rating, words in RATING_WORDS.items():
            for i in range(n):
                rows.append({"text": f"Hotel room {words[i % 2]} and {words[(i + 1) % 2]} stay {i}",
                             "label": rating, "split": split})
    return rows[::2] + rows[1::2]


# Topic words of each category; a document of two categories has both sets, one of none has neither.
TOPIC_WORDS = {"sports": "football match goal", "politics": "election vote parliament", "tech": "software chip laptop"}
NEWS_LABELS = {
    "train": ["sports", "politics", "tech", "sports politics", "", "tech sports", "politics", "sports", "tech",
              "", "politics tech", "sports", "tech", "politics", "sports tech", "", "sports", "politics", "tech",
              "politics sports"],
    "test": ["sports", "politics", "tech", "", "sports tech", "politics", "tech politics", "sports", "", "tech"],
}


def news_rows():
    """Short news items with zero, one or two categories; every third carries another category's word as noise."""
    rows = []
    for split, labels in NEWS_LABELS.items():
        for i, label in enumerate(labels):
            words = [TOPIC_WORDS[c] for c in label.split()] or ["weather sunny rain"]
            noise = list(TOPIC_WORDS.values())[i % 3].split()[0] if i % 3 == 0 else ""
            rows.append({"text": f"Report {i}: {' '.join(words)} {noise} today", "label": label, "split": split})
    return rows


def write_csv(path, rows):
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# The reader


def test_a_rated_file_reads_as_integer_ratings_with_a_stratified_dev_share_when_it_has_none(tmp_path):
    rows = [r for r in rated_rows() if r["split"] != "dev"]
    frame = user_table.prepare(write_csv(tmp_path / "rated.csv", rows), dev_fraction=0.25, seed=3, task="ordinal")
    assert list(frame.columns) == ["id", "split", "label", "text"]
    assert frame["label"].dtype == "int64" and set(frame["label"]) == {1, 2, 3, 4, 5}
    dev = frame[frame["split"] == "dev"]
    assert sorted(dev["label"]) == [1, 1, 2, 2, 3, 3, 4, 4, 5, 5]  # a quarter of 8 per rating
    assert (frame["split"] == "test").sum() == 15


@pytest.mark.parametrize(
    ("label", "message"), [(6, r"label '6' is not a rating 1-5"), ("four", r"label 'four' is not a rating")]
)
def test_a_label_that_is_not_a_rating_is_named_with_its_line(tmp_path, label, message):
    rows = rated_rows()
    rows[4] = {**rows[4], "label": label}
    with pytest.raises(DataError, match=rf"rated\.csv: line 6: {message}"):
        user_table.prepare(write_csv(tmp_path / "rated.csv", rows), dev_fraction=0.1, seed=1, task="ordinal")


def test_a_multi_label_file_reads_as_category_lists_in_csv_and_parquet(tmp_path):
    rows = news_rows()
    frame = user_table.prepare(write_csv(tmp_path / "news.csv", rows), dev_fraction=0.1, seed=1, task="ranking")
    assert list(frame.columns) == ["id", "split", "label", "text"]
    assert set(frame["split"]) == {"train", "test"}  # no dev held out: the Fisher protocol trains on train
    assert [list(labels) for labels in frame["label"]] == [r["label"].split() for r in rows]
    pd.DataFrame(rows).assign(label=[r["label"].split() for r in rows]).to_parquet(tmp_path / "news.parquet")
    again = user_table.prepare(tmp_path / "news.parquet", dev_fraction=0.1, seed=1, task="ranking")
    assert [list(labels) for labels in again["label"]] == [r["label"].split() for r in rows]
    pd.DataFrame(rows).assign(label=7).to_parquet(tmp_path / "bad.parquet")
    with pytest.raises(DataError, match=r"bad\.parquet: row 1: label 7 is not a list of category names"):
        user_table.prepare(tmp_path / "bad.parquet", dev_fraction=0.1, seed=1, task="ranking")


# The planners


def _config():
    return yaml.safe_load((REPO_ROOT / "config.yaml").read_text())


def test_the_planners_take_the_catalog_datasets_of_their_task():
    config = _config()
    config["catalog"] = {
        "rated": {"path": "r.csv", "sha256": "0" * 64, "task": "ordinal"},
        "news": {"path": "n.csv", "sha256": "0" * 64, "task": "ranking", "categories": ["sports", "tech"]},
        "idle": {"path": "i.csv", "sha256": "0" * 64, "task": "ranking", "categories": ["x"]},  # not in datasets
    }
    config["datasets"] = ["reuters", "rated", "news"]
    config["ordinal"]["datasets"] = ["rated"]
    assert ordinal_plan.datasets(config) == ["rated"]
    assert ordinal_plan.records(config, "R") == [f"R/runs/ordinal/rated/featsel/{s}.json" for s in SLUGS.values()]
    assert fisher_plan.datasets(config) == {"reuters": config["fisher"]["categories"], "news": ["sports", "tech"]}
    records = fisher_plan.records(config, "R")
    systems = config["fisher"]["systems"]
    assert len(records) == len(systems) * (len(config["fisher"]["categories"]) + 2)
    assert {r for r in records if "/news/" in r} == {
        f"R/runs/fisher/news/{s}/{c}.json" for s in systems for c in ("sports", "tech")
    }
    # A catalog corpus takes every document and, for the cross-validation of c, its own categories.
    config["fisher"]["documents"] = "top10"
    assert fisher_plan.feature_settings(config, "news", ("documents", "categories", "k")) == {
        "documents": "all", "categories": ["sports", "tech"], "k": config["fisher"]["k"]
    }
    assert fisher_plan.feature_settings(config, "reuters", ("documents",)) == {"documents": "top10"}


# The workflow


def _run(tmp_path, partial, targets):
    config = tmp_path / "own.yaml"
    config.write_text(yaml.safe_dump(partial))
    run = run_snakemake(
        [*SNAKEMAKE, "--cores", "2", "--configfile", str(config), "--", *map(str, targets)],
        cwd=REPO_ROOT,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]


@pytest.mark.slow
def test_a_rated_catalog_dataset_joins_the_ordinal_papers_runs_and_table(tmp_path):
    data = write_csv(tmp_path / "rated.csv", rated_rows())
    results = tmp_path / "results"
    partial = {
        "results_dir": str(results),
        "profile": "smoke",
        "catalog": {"rated": {"path": str(data), "sha256": sha256(data), "task": "ordinal"}},
        "datasets": ["rated"],
        "ordinal": {"datasets": ["rated"]},
        "tables": ["ordinal"],
    }
    _run(tmp_path, partial, [results / "tables/ordinal.csv"])

    record = json.loads((results / "runs/ordinal/rated/featsel/triv.json").read_text())
    assert (record["paper"], record["dataset"], record["system"]) == ("ordinal", "rated", "Triv")
    table = pd.read_csv(results / "tables/ordinal.csv")
    assert set(table["dataset"]) == {"rated"} and set(table["system"]) == set(SLUGS)
    assert set(table["paper"]) == {"ordinal"} and table["paper_value"].isna().all()
    test = table[table["split"] == "test"].set_index("system")
    # Triv scores every review 3 stars: MAE^M over the five ratings is (2 + 1 + 0 + 1 + 2) / 5.
    assert test.loc["Triv", "value"] == pytest.approx(1.2, abs=1e-4)
    # Every word names its rating: the full feature set ranks the reviews far better than Triv.
    assert test.loc["FFS", "value"] < 0.5


@pytest.mark.slow
def test_a_multi_label_catalog_dataset_joins_the_fisher_systems(tmp_path):
    rows = news_rows()
    data = write_csv(tmp_path / "news.csv", rows)
    results = tmp_path / "results"
    categories = ["sports", "politics", "tech"]
    partial = {
        "results_dir": str(results),
        "profile": "smoke",
        "catalog": {"news": {"path": str(data), "sha256": sha256(data), "task": "ranking", "categories": categories}},
        "datasets": ["news"],
        "fisher": {"systems": ["BoW-TFIDF", "ngram-uniform"], "min_count": 1},
        "tables": ["baselines", "fisher"],
    }
    run = "runs/fisher/news/{system}/{category}.json"
    targets = [results / run.format(system=s, category=c) for s in ("BoW-TFIDF", "ngram-uniform") for c in categories]
    _run(tmp_path, partial, [*targets, results / "runs/fisher/news/Triv.json"])

    train = [r for r in rows if r["split"] == "train"]
    test = [r for r in rows if r["split"] == "test"]
    vectoriser = TfidfVectorizer(lowercase=True)
    x_train = vectoriser.fit_transform([r["text"] for r in train])
    x_test = vectoriser.transform([r["text"] for r in test])
    for category in categories:
        record = json.loads((results / run.format(system="BoW-TFIDF", category=category)).read_text())
        assert (record["paper"], record["dataset"], record["table"]) == ("fisher", "news", "fisher")
        values = {(r["dataset"], r["metric"]): r["value"] for r in record["rows"]}
        # The same problem solved by scikit-learn's linear SVC: SVMlight's defaults (C = 1) on tf-idf vectors.
        y_train = np.array([category in r["label"].split() for r in train])
        y_test = np.array([category in r["label"].split() for r in test])
        decision = SVC(kernel="linear", C=1.0).fit(x_train, y_train).decision_function(x_test)
        expected = average_precision_score(y_test, decision)
        assert values[(f"news/{category}", "average_precision_ranking")] == pytest.approx(expected, abs=1e-9)
        kernel = json.loads((results / run.format(system="ngram-uniform", category=category)).read_text())
        assert {r["dataset"] for r in kernel["rows"]} == {f"news/{category}"}
        predictions = pd.read_parquet(kernel["predictions"])
        assert set(predictions["category"]) == {f"news/{category}"} and len(predictions) == len(test)

    # Triv ranks every test document alike: its average precision over the ranking is the category's test share.
    triv = json.loads((results / "runs/fisher/news/Triv.json").read_text())
    for category in categories:
        share = np.mean([category in r["label"].split() for r in test])
        value = next(r["value"] for r in triv["rows"]
                     if r["dataset"] == f"news/{category}" and r["metric"] == "average_precision_ranking")
        assert value == pytest.approx(share)
