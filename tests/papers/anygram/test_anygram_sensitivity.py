"""Sensitivity rows of the any-gram table: re-split Gram slices, default predictions, row values."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from kernbench.data.semeval14 import dev_mask
from kernbench.errors import DataError
from kernbench.kernels.anygram_encoding import TokenEncoder
from kernbench.papers.anygram import sensitivity as sens
from kernbench.papers.anygram.experiment import compute_grams, run_svm


@pytest.fixture(scope="module")
def small(laptop):
    """Whole sentences of the laptop training file (train and dev) and 120 test items."""
    pool = laptop[laptop["split"] != "test"]
    keep = pool["sentence_id"].isin(pool["sentence_id"].unique()[:260])
    return pd.concat([pool[keep], laptop[laptop["split"] == "test"].head(120)], ignore_index=True)


@pytest.fixture(scope="module")
def encoder():
    return TokenEncoder(np.array([], dtype=str), np.zeros((0, 3)), cased=False)


def test_sliced_pool_gram_equals_the_gram_of_a_fresh_split(small, encoder):
    """A new dev hold-out from slices of one pooled Gram matrix gives the SVM a direct computation would."""
    pool, grams = sens.pool_grams(small, encoder, system="AGKsm", lam=0.4)
    test = small[small["split"] == "test"]
    dev = dev_mask(pool, dev_fraction=0.2, seed=5, path="laptop")
    assert 0 < dev.sum() < len(pool)
    frame, sliced = sens.resplit_grams(pool, test, grams, dev)
    direct = compute_grams(frame, encoder, system="AGKsm", lam=0.4)
    for split in ("train", "dev", "test"):
        np.testing.assert_allclose(sliced[split][0], direct[split][0], rtol=1e-12)
        np.testing.assert_allclose(sliced[split][1], direct[split][1], rtol=1e-12)
    a = run_svm(frame, {None: sliced}, C_grid=[0.1, 1.0, 10.0], normalize_options=[False, True], dataset="laptop")
    b = run_svm(frame, {None: direct}, C_grid=[0.1, 1.0, 10.0], normalize_options=[False, True], dataset="laptop")
    assert a.chosen == b.chosen
    pd.testing.assert_frame_equal(a.predictions, b.predictions)
    # The sentences of the new dev are whole and disjoint from the new train.
    assert not set(frame.loc[frame["split"] == "dev", "sentence_id"]) & set(frame.loc[frame["split"] == "train", "sentence_id"])


def test_rows_compare_with_the_main_predictions_on_the_same_items(tmp_path, small, encoder):
    grams = compute_grams(small, encoder, system="AGKsm", lam=0.4)
    main = run_svm(small, {None: grams}, C_grid=[1.0, 10.0], normalize_options=[True], dataset="laptop")
    path = tmp_path / "AGKsm.predictions.parquet"
    main.predictions.iloc[::-1].to_parquet(path)  # order of the file does not matter
    common = {"C_grid": [1.0, 10.0], "normalize_options": [True], "resamples": 50, "seed": 1}
    # The default decay as its own alternative reproduces the main run: delta exactly 0.
    (same,) = sens.lam_rows(small, encoder, dataset="laptop", systems=["AGKsm"], lams=[0.4], default_lam=0.4,
                            default_predictions={"AGKsm": path}, **common)  # fmt: skip
    test = main.predictions[main.predictions["split"] == "test"]
    acc = 100 * (test["y_true"] == test["y_pred"]).mean()
    assert same["value"] == same["value_default"] == pytest.approx(acc) and same["delta"] == 0
    assert same["n_items"] == 120 and same["choice"] == "anygram.lam" and same["alternative"] == "lam = 0.4"
    (other,) = sens.lam_rows(small, encoder, dataset="laptop", systems=["AGKsm"], lams=[0.9], default_lam=0.4,
                             default_predictions={"AGKsm": path}, **common)  # fmt: skip
    assert other["delta"] == pytest.approx(other["value"] - acc)
    # Default predictions of other items are refused.
    main.predictions.head(10).to_parquet(path)
    with pytest.raises(DataError, match="stale run"):
        sens.test_predictions(path, test["id"].tolist())


def test_jobs_follow_the_main_table_and_drop_the_default_from_the_alternatives():
    import yaml

    from tests.conftest import REPO_ROOT

    config = yaml.safe_load((REPO_ROOT / "config.yaml").read_text())
    config["anygram"]["sensitivity"]["lam"] = [0.2, 0.4]  # 0.4 is the default: no row for it
    config["anygram"]["agk_systems"] = ["AGKsm", "AGKwest"]  # AGKwess not in the main table: no rows for it
    config["datasets"] = ["semeval14_laptop", "sst"]
    jobs = sens.sensitivity_jobs(config)
    assert set(jobs) == {"lam", "dev_split", "lowercase_sm", "split_contractions", "identical_match", "aspect_bit"}
    assert jobs["split_contractions"][2] == ["AGKsm", "AGKwest"] and jobs["identical_match"][2] == ["AGKwest"]
    assert jobs["split_contractions"][3]["alternatives"] == [False] and jobs["aspect_bit"][3]["alternatives"] == ["unit"]
    assert jobs["aspect_bit"][3]["encoding"] == {"split_contractions": True, "identical_match": True, "aspect_bit": "raw"}
    assert jobs["aspect_bit"][3]["theta"] == config["anygram"]["theta"]
    choice, datasets, systems, settings = jobs["lam"]
    assert (choice, datasets, systems, settings["alternatives"]) == ("anygram.lam", ["semeval14_laptop"], ["AGKsm"], [0.2])
    assert jobs["dev_split"][2] == ["AGKsm", "AGKwest"] and jobs["dev_split"][3]["default_seed"] == config["seed"]
    assert jobs["lowercase_sm"][1] == ["semeval14_laptop", "sst"] and jobs["lowercase_sm"][3]["alternatives"] == [False]
    config["anygram"]["sensitivity"]["dev_split_seeds"] = [config["seed"]]
    assert "dev_split" not in sens.sensitivity_jobs(config)


def test_cased_string_match_separates_capitalised_words(encoder):
    """AGKsm: "Good" and "good" are one token lower-cased, two as written (K = sum of lam**n over shared n-grams)."""
    frame = pd.DataFrame({
        "split": ["train", "dev", "test"], "tokens": [["Good", "screen"], ["good"], ["good", "Screen"]],
        "label": ["positive", "positive", "negative"], "id": ["a", "b", "c"],
    })  # fmt: skip
    lower = compute_grams(frame, encoder, system="AGKsm", lam=0.5)
    cased = compute_grams(frame, encoder, system="AGKsm", lam=0.5, lowercase_sm=False)
    assert lower["test"][0][0, 0] == pytest.approx(0.5 + 0.5 + 0.25)  # good, screen, good screen
    assert cased["test"][0][0, 0] == 0.0
    assert lower["dev"][0][0, 0] == pytest.approx(0.5) and cased["dev"][0][0, 0] == 0.0


def test_encoding_rows_retrain_with_the_other_value(tmp_path, small, encoder):
    """An encoding row names the choice's two values and scores the alternative against the main predictions."""
    from kernbench.kernels.anygram_encoding import Encoding

    main = encoder.with_encoding(**Encoding(identical_match=True).as_dict())
    grams = {t: compute_grams(small, main, system="AGKwest", lam=0.4, theta=t) for t in (0.9, 0.95)}
    result = run_svm(small, grams, C_grid=[1.0], normalize_options=[True], dataset="semeval14_laptop")
    path = tmp_path / "AGKwest.predictions.parquet"
    result.predictions.to_parquet(path)
    rows = sens.encoding_rows(
        small, main, choice="identical_match", alternative=False, dataset="semeval14_laptop", systems=["AGKwest"],
        lam=0.4, thetas=[0.9, 0.95], C_grid=[1.0], normalize_options=[True], default_predictions={"AGKwest": path},
        resamples=20, seed=0,
    )  # fmt: skip
    (row,) = rows
    assert (row["choice"], row["default"], row["alternative"]) == (
        "anygram.identical_match", "identical tokens match", "unknown words match nothing"
    )
    test = result.predictions[result.predictions["split"] == "test"]
    assert row["value_default"] == pytest.approx(100 * (test["y_pred"] == test["y_true"]).mean())
    # Every word is unknown to this encoder: without identity nothing matches, the kernel is 0 and so is the
    # self-similarity, and the SVM predicts one class for every test item.
    assert row["value"] != row["value_default"]
