"""Sensitivity rows of Table 1 on the small synthetic corpus: every choice, against the main run's predictions."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import average_precision_score

from kernbench.cli import main
from kernbench.metrics import thresholded_average_precision
from kernbench.papers.fisher.experiment import run_category
from kernbench.papers.fisher.sensitivity import sensitivity_rows
from kernbench.records import load_record
from kernbench.report.sensitivity import COLUMNS, write_rows
from tests.papers.fisher.test_fisher_cli import PARAMS, SVM, _corpus

CATEGORIES = ["grain", "money-fx"]
CONFIG = {**PARAMS, **SVM, "c": 1.0, "c_grid": [1, 10], "cv_folds": 2, "categories": CATEGORIES,
          "sensitivity": {"documents_systems": ["ngram-ln"], "loss_systems": ["ngram-ln"],
                          "solver_systems": ["ngram-ln"], "text_systems": ["ngram-ln", "FSA-uniform"], "max_state_lengths": [3]}}


@pytest.fixture(scope="module")
def main_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("fisher")
    prepared = tmp / "reuters.parquet"
    _corpus().to_parquet(prepared, index=False)
    records, caches = {}, {}
    for system in ("ngram-ln", "FSA-uniform"):
        cache, info = tmp / f"{system}.npz", tmp / f"{system}.json"
        assert main(["fisher-features", "--system", system, "--prepared", str(prepared), "--params",
                     json.dumps(CONFIG), "--seed", "1", "--out", str(cache), "--info", str(info)]) == 0
        caches[system] = str(cache)
        for category in CATEGORIES:
            record = tmp / f"{system}-{category}.json"
            assert main(["fisher-svm", "--system", system, "--category", category, "--prepared", str(prepared),
                         "--features", str(cache), "--features-info", str(info), "--params", json.dumps(SVM),
                         "--seed", "1", "--profile", "smoke", "--record", str(record), "--predictions",
                         str(tmp / f"{system}-{category}.parquet")]) == 0
            records[(system, category)] = load_record(record)
    return _corpus(), records, caches


def _rows(main_run, choice, systems):
    frame, records, caches = main_run
    chosen = [r for (s, _), r in records.items() if s in systems]
    rows, seconds = sensitivity_rows(choice, frame, chosen, CONFIG, resamples=100, seed=0, feature_paths=caches)
    assert seconds > 0
    return pd.DataFrame(rows, columns=COLUMNS)


def test_ap_reading_rows_are_the_three_measures_of_the_main_scores(main_run):
    rows = _rows(main_run, "ap_reading", ["ngram-ln", "FSA-uniform"])
    assert len(rows) == 2 * 2 * 2 and set(rows["choice"]) == {"fisher.ap_reading"}
    _, records, _ = main_run
    record = records[("ngram-ln", "grain")]
    items = pd.read_parquet(record["predictions"])
    row = rows[(rows.system == "ngram-ln") & (rows.dataset == "grain")].set_index("metric")
    paper = 100 * thresholded_average_precision(items.y_true, items.score)
    assert row.loc["average_precision_ranking", "value_default"] == pytest.approx(paper)
    assert row.loc["average_precision_ranking", "value"] == pytest.approx(
        100 * average_precision_score(items.y_true, items.score))
    assert row["delta"].to_numpy() == pytest.approx((row["value"] - row["value_default"]).to_numpy())


def test_c_rows_rerun_each_other_c_of_the_grid_on_the_systems_that_use_it(main_run, tmp_path):
    rows = _rows(main_run, "c", ["ngram-ln", "FSA-uniform"])
    assert set(rows["system"]) == {"ngram-ln"}  # FSA-uniform does not depend on c
    assert list(rows["alternative"]) == ["c = 10", "c = 10"] and set(rows["default"]) == {"c = 1"}
    frame, records, _ = main_run
    grain = rows[rows.dataset == "grain"].iloc[0]
    main_ap = next(r["value"] for r in records[("ngram-ln", "grain")]["rows"] if r["metric"] == "average_precision")
    assert grain["value_default"] == pytest.approx(100 * main_ap)
    write_rows(rows.to_dict("records"), tmp_path / "fisher.c.csv")
    assert list(pd.read_csv(tmp_path / "fisher.c.csv").columns) == COLUMNS


def test_documents_loss_and_state_length_rows(main_run):
    documents = _rows(main_run, "documents", ["ngram-ln"])
    assert set(documents["alternative"]) == {"with_topics", "top10"}
    # A document set filters the test documents too: the rows compare on the alternative's.
    assert (documents["n_items"] < 24).all()
    loss = _rows(main_run, "loss", ["ngram-ln"])
    assert set(loss["alternative"]) == {"hinge (liblinear)"} and len(loss) == 2
    capped = _rows(main_run, "max_state_length", ["ngram-ln", "FSA-uniform"])
    assert set(capped["system"]) == {"FSA-uniform"} and set(capped["alternative"]) == {"3"}
    assert set(capped["default"]) == {"none"}


def test_loss_row_value_is_the_hinge_svm_on_the_cached_features(main_run):
    frame, records, caches = main_run
    from kernbench.papers.fisher.experiment import load_features

    x_train, x_test, train_ids, test_ids = load_features(caches["ngram-ln"])
    labels = frame.set_index("id")["label"]
    y_train = np.array(["grain" in labels[i] for i in train_ids])
    y_test = np.array(["grain" in labels[i] for i in test_ids])
    scores, _ = run_category(x_train, x_test, y_train, y_test, **{**SVM, "loss": "hinge"}, seed=1)
    loss = _rows(main_run, "loss", ["ngram-ln"]).set_index("dataset")
    assert loss.loc["grain", "value"] == pytest.approx(100 * scores["average_precision"])


def test_solver_row_is_libsvm_on_the_cached_features_and_loss_row_liblinear(main_run):
    frame, records, caches = main_run
    from kernbench.papers.fisher.experiment import load_features

    solver = _rows(main_run, "solver", ["ngram-ln"]).set_index("dataset")
    assert set(solver["default"]) == {"liblinear (squared_hinge)"} and set(solver["alternative"]) == {"libsvm (hinge)"}
    x_train, x_test, train_ids, test_ids = load_features(caches["ngram-ln"])
    labels = frame.set_index("id")["label"]
    y_train = np.array(["grain" in labels[i] for i in train_ids])
    y_test = np.array(["grain" in labels[i] for i in test_ids])
    scores, _ = run_category(x_train, x_test, y_train, y_test, **{**SVM, "solver": "libsvm", "loss": "hinge"}, seed=1)
    assert solver.loc["grain", "value"] == pytest.approx(100 * scores["average_precision"])
    loss = _rows(main_run, "loss", ["ngram-ln"])
    assert set(loss["default"]) == {"squared_hinge (liblinear)"} and set(loss["alternative"]) == {"hinge (liblinear)"}


@pytest.mark.parametrize("choice", ["lowercase", "collapse_whitespace"])
def test_text_normalisation_rows_rebuild_the_features_without_the_step(main_run, choice):
    from kernbench.papers.fisher.experiment import build_features, run_category as run

    rows = _rows(main_run, choice, ["ngram-ln", "FSA-uniform"])
    assert set(rows["system"]) == {"ngram-ln", "FSA-uniform"} and len(rows) == 4
    assert set(rows["default"]) == {"true"} and set(rows["alternative"]) == {"false"}
    frame, _, _ = main_run
    features, train_ids, test_ids = build_features(frame, "FSA-uniform", {**CONFIG, choice: False})
    labels = frame.set_index("id")["label"]
    y_train = np.array(["grain" in labels[i] for i in train_ids])
    y_test = np.array(["grain" in labels[i] for i in test_ids])
    scores, _ = run(features.train, features.test, y_train, y_test, **SVM, seed=1)
    row = rows[(rows.system == "FSA-uniform") & (rows.dataset == "grain")].iloc[0]
    assert row["value"] == pytest.approx(100 * scores["average_precision"])
