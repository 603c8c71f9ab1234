"""The job contract's shared steps: selection on held-out data and scoring of dev and test."""

import numpy as np
import pandas as pd
import pytest

from kernbench.metrics import classification_scores
from kernbench.runs import evaluate_splits, select_on_dev


def test_select_on_dev_takes_the_first_of_equal_best_scores():
    key, payload, scores = select_on_dev([("a", 0.5, 1), ("b", 0.7, 2), ("c", 0.7, 3), ("d", 0.6, 4)])
    assert (key, payload) == ("b", 2)
    assert scores == {"a": 0.5, "b": 0.7, "c": 0.7, "d": 0.6}


def test_select_on_dev_minimises_an_error():
    key, payload, _ = select_on_dev(zip([1, 2, 4, 8], [1.2, 0.9, 0.9, 1.0], "wxyz"), higher_is_better=False)
    assert (key, payload) == (2, "x")


def test_select_on_dev_holds_only_the_best_payload():
    built = []

    def candidates():
        for c in (1.0, 10.0, 100.0):
            built.append(c)
            yield c, {1.0: 0.4, 10.0: 0.8, 100.0: 0.6}[c], object()
            # the generator is consumed one candidate at a time
            assert len(built) == len({1.0, 10.0, 100.0} & set(built))

    key, _, scores = select_on_dev(candidates())
    assert key == 10.0 and list(scores) == [1.0, 10.0, 100.0]


def test_select_on_dev_rejects_an_empty_grid():
    with pytest.raises(ValueError, match="no candidate"):
        select_on_dev([])


def test_evaluate_splits_scores_dev_then_test_and_skips_empty_splits():
    parts = {
        "train": pd.DataFrame({"id": [0, 1], "label": [0, 1]}),
        "dev": pd.DataFrame({"id": [2, 3, 4], "label": [0, 1, 1]}),
        "test": pd.DataFrame({"id": [], "label": []}),
    }
    rows, predictions = evaluate_splits(
        parts, lambda split, part: np.ones(len(part), dtype=int), dataset="toy", score=classification_scores
    )
    accuracy = next(r["value"] for r in rows if r["metric"] == "accuracy")
    assert accuracy == pytest.approx(2 / 3)  # fractions here; the tables print percent
    assert {r["split"] for r in rows} == {"dev"}
    assert predictions["id"].tolist() == [2, 3, 4] and predictions["y_pred"].tolist() == [1, 1, 1]


def test_paths_per_run_fills_each_value_and_refuses_templates_runs_would_share():
    import argparse

    from kernbench.errors import DataError
    from kernbench.runs import paths_per_run

    args = argparse.Namespace(record="runs/{seed}.json", predictions="runs/{seed}.parquet")
    assert paths_per_run(args, ("record", "predictions"), "seed", [1, 2], command="lstm") == {
        1: {"record": "runs/1.json", "predictions": "runs/1.parquet"},
        2: {"record": "runs/2.json", "predictions": "runs/2.parquet"},
    }
    one = argparse.Namespace(record="runs/a.json", predictions="runs/a.parquet")
    assert paths_per_run(one, ("record", "predictions"), "seed", [7], command="lstm") == {
        7: {"record": "runs/a.json", "predictions": "runs/a.parquet"}
    }
    shared = argparse.Namespace(record="runs/{category}.json", predictions="runs/all.parquet")
    with pytest.raises(DataError, match=r"fisher-svm --predictions 'runs/all.parquet' must contain \{category\}.*acq, earn"):
        paths_per_run(shared, ("record", "predictions"), "category", ["acq", "earn"], command="fisher-svm")
