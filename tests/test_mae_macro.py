"""Macro-averaged MAE (Baccianella et al., Eq. 3): over the true ranks, also when a predicted rank is absent."""

from __future__ import annotations

import numpy as np
import pytest
from imblearn.metrics import macro_averaged_mean_absolute_error

from kernbench.baselines import run_baseline
from kernbench.catalog import BUILTIN_DATASETS as DATASETS
from kernbench.data import reviews
from kernbench.metrics import mae_macro, ordinal_scores

PARAMS = {"C": [0.1, 1.0], "reuters_C": 1.0, "svr_epsilon": 0.0, "min_df": 1, "sublinear_tf": False}


def test_a_predicted_rank_absent_from_the_truth_adds_no_term():
    # true ranks 1 and 2; 3 is only predicted. Rank 1: (0 + 2) / 2 = 1, rank 2: 0; mean 0.5
    # (imbalanced-learn raises on the empty rank 3; averaging over 1, 2 and 3 would not give 0.5 either).
    assert mae_macro([1, 1, 2], [1, 3, 2]) == 0.5
    assert ordinal_scores([1, 1, 2], [1, 3, 2])["mae_macro"] == 0.5
    assert ordinal_scores([5, 5, 4, 4, 4, 4], [3, 3, 3, 3, 3, 3])["mae_macro"] == 1.5


@pytest.mark.parametrize("seed", range(20))
def test_equal_to_imbalanced_learn_where_it_is_defined(seed):
    rng = np.random.default_rng(seed)
    y_true = rng.integers(1, 6, size=int(rng.integers(5, 400)))
    y_pred = np.where(rng.random(y_true.size) < 0.5, y_true, rng.choice(np.unique(y_true), size=y_true.size))
    assert mae_macro(y_true, y_pred) == macro_averaged_mean_absolute_error(y_true, y_pred)


@pytest.mark.parametrize("y_true, y_pred", [([], []), ([1, 2], [1]), ([[1, 2]], [[1, 2]])])
def test_bad_shapes_are_refused(y_true, y_pred):
    with pytest.raises(ValueError, match="mae_macro"):
        mae_macro(y_true, y_pred)


@pytest.fixture(scope="module")
def hotel_without_three_stars(mirror):
    folder = mirror / "reviews/tripadvisor-wang2011-sample5000"
    frame = reviews.prepare_hotel(folder / "reviews.jsonl", folder / "split_suggested.tsv")
    held_out = frame["split"] != "train"
    return frame[~(held_out & frame["label"].isin([3, 4]))].reset_index(drop=True)


@pytest.mark.parametrize("system", ["Triv-3stars", "BoW-TFIDF"])
def test_review_baselines_on_dev_and_test_splits_lacking_predicted_stars(hotel_without_three_stars, system):
    frame = hotel_without_three_stars
    result = run_baseline(DATASETS["reviews_hotel"], frame, system=system, params=PARAMS, seed=0)
    for split in ("dev", "test"):
        preds = result.predictions[result.predictions["split"] == split]
        assert not set(preds["y_pred"]) <= set(preds["y_true"])  # a star predicted that the split lacks
        value = next(r["value"] for r in result.rows if (r["split"], r["metric"]) == (split, "mae_macro"))
        per_star = [np.abs(preds["y_pred"][preds["y_true"] == r] - r).mean() for r in sorted(set(preds["y_true"]))]
        assert value == pytest.approx(np.mean(per_star))
