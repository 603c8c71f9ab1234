"""Baselines on real data slices: the trivial predictors are what they claim, BoW beats them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from imblearn.metrics import macro_averaged_mean_absolute_error
from sklearn.metrics import accuracy_score

from kernbench.baselines import run_baseline
from kernbench.catalog import BUILTIN_DATASETS as DATASETS
from kernbench.data import reuters, reviews, semeval14
from kernbench.data.prepare import subsample
from kernbench.metrics import ordinal_scores

PARAMS = {"C": [0.1, 1.0], "reuters_C": 1.0, "svr_epsilon": 0.0, "min_df": 1, "sublinear_tf": False}


def _values(result, split, metric, dataset):
    return next(r["value"] for r in result.rows if (r["split"], r["metric"], r["dataset"]) == (split, metric, dataset))


@pytest.fixture(scope="module")
def laptop(mirror):
    return semeval14.prepare(
        mirror / "semeval14/Laptop_Train_v2.xml", mirror / "semeval14/Laptops_Test_Gold.xml", dev_fraction=0.1, seed=1
    )


def test_triv_is_the_majority_class_of_train(laptop):
    result = run_baseline(DATASETS["semeval14_laptop"], laptop, system="Triv", params=PARAMS, seed=0)
    test = laptop[laptop["split"] == "test"]
    assert set(result.predictions["y_pred"]) == {"positive"}
    assert _values(result, "test", "accuracy", "semeval14_laptop") == pytest.approx((test["label"] == "positive").mean())
    assert _values(result, "test", "accuracy", "semeval14_laptop") == pytest.approx(341 / 654)


def test_bow_beats_triv_on_semeval_and_marks_aspects(laptop):
    bow = run_baseline(DATASETS["semeval14_laptop"], laptop, system="BoW-TFIDF", params=PARAMS, seed=0)
    preds = bow.predictions[bow.predictions["split"] == "test"]
    acc = accuracy_score(preds["y_true"], preds["y_pred"])
    assert acc == pytest.approx(_values(bow, "test", "accuracy", "semeval14_laptop"))
    assert acc > 341 / 654 + 0.05
    assert bow.chosen["C"] in PARAMS["C"]
    # Two aspects of one sentence with different gold polarity can get different predictions.
    multi = laptop[laptop["split"] == "test"].groupby("sentence_id")["label"].nunique()
    assert (multi > 1).any()
    by_sentence = preds.assign(sentence=laptop.set_index("id").loc[preds["id"], "sentence_id"].to_numpy())
    assert (by_sentence.groupby("sentence")["y_pred"].nunique() > 1).any()


def test_reuters_triv_ap_is_prevalence_and_bow_ranks_well(mirror):
    frame = reuters.prepare(sorted((mirror / "reuters21578").glob("reut2-*.sgm")))
    frame = subsample(frame, {"train": 3000, "test": 1000}, seed=3)
    spec = DATASETS["reuters"]
    triv = run_baseline(spec, frame, system="Triv", params=PARAMS, seed=0)
    bow = run_baseline(spec, frame, system="BoW-TFIDF", params=PARAMS, seed=0)
    test = frame[frame["split"] == "test"]
    for category in reuters.TOP10:
        prevalence = np.mean([category in labels for labels in test["label"]])
        assert _values(triv, "test", "average_precision_ranking", category) == pytest.approx(prevalence)
        assert _values(triv, "test", "average_precision", category) == 0.0  # nothing classified positive
    assert _values(bow, "test", "average_precision", "earn") > 0.97
    assert _values(bow, "test", "average_precision_ranking", "earn") > 0.97


def test_review_baselines_match_the_library_metric(mirror):
    folder = mirror / "reviews/tripadvisor-wang2011-sample5000"
    frame = reviews.prepare_hotel(folder / "reviews.jsonl", folder / "split_suggested.tsv")
    spec = DATASETS["reviews_hotel"]
    three = run_baseline(spec, frame, system="Triv-3stars", params=PARAMS, seed=0)
    assert _values(three, "test", "mae_macro", "reviews_hotel") == pytest.approx(1.2)
    bow = run_baseline(spec, frame, system="BoW-TFIDF", params=PARAMS, seed=0)
    preds = bow.predictions[bow.predictions["split"] == "test"]
    assert set(preds["y_pred"]) <= {1, 2, 3, 4, 5}
    expected = macro_averaged_mean_absolute_error(preds["y_true"], preds["y_pred"])
    assert _values(bow, "test", "mae_macro", "reviews_hotel") == pytest.approx(expected)
    assert expected < 1.0


def test_hand_written_metric_wrapper_agrees_with_imblearn():
    y_true = np.array([1, 1, 2, 3, 5, 5, 5, 4])
    y_pred = np.array([1, 2, 2, 5, 5, 4, 3, 4])
    # per class: 1 -> 0.5, 2 -> 0, 3 -> 2, 4 -> 0, 5 -> 1; mean 0.7
    assert ordinal_scores(y_true, y_pred)["mae_macro"] == pytest.approx(0.7)


def test_unknown_system_is_rejected(laptop):
    with pytest.raises(ValueError, match="Triv-3stars"):
        run_baseline(DATASETS["semeval14_laptop"], laptop, system="Triv-3stars", params=PARAMS, seed=0)


def test_subsample_is_seeded_and_keeps_order():
    frame = pd.DataFrame({"split": ["train"] * 50 + ["test"] * 5, "x": range(55)})
    a = subsample(frame, {"train": 10}, seed=1)
    assert len(a) == 15 and a["x"].is_monotonic_increasing
    assert a.equals(subsample(frame, {"train": 10}, seed=1))
    assert not a.equals(subsample(frame, {"train": 10}, seed=2))
