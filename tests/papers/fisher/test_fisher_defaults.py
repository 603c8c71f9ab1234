"""Table 1's systems are what their names say at the configured defaults, on a real Reuters slice.

The ln and 1/p weightings depend on the initial count c of Eq. 2; a large c
makes them flat, and the system is then the uniform one under another name.
The SVM is SVMlight's: the hinge loss with a bias that is practically not
regularised, checked against libsvm, which leaves the bias out of the norm.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from sklearn.svm import SVC

from kernbench.data import reuters
from kernbench.metrics import thresholded_average_precision
from kernbench.papers.fisher.experiment import (
    SVM_KEYS,
    category_labels,
    feature_counts,
    run_category,
    weight_range,
    weighted_features,
)

REPO_ROOT = Path(__file__).resolve().parents[3]
#: Pairs of systems the paper reports separately.
DISTINCT = [("FSA-ln", "FSA-uniform"), ("ngram-ln", "ngram-uniform"), ("ngram-nonuniform", "ngram-uniform")]
#: Mean cosine between two systems' training rows above which they are one system up to a rescaling.
SAME = 0.98


@pytest.fixture(scope="module")
def config() -> dict:
    return yaml.safe_load((REPO_ROOT / "config.yaml").read_text(encoding="utf-8"))["fisher"]


@pytest.fixture(scope="module")
def reuters_slice(mirror) -> pd.DataFrame:
    """300 ModApte training and 100 test documents of the real corpus."""
    raw = mirror / "reuters21578"
    frame = reuters.prepare([raw / "reut2-000.sgm", raw / "reut2-014.sgm", raw / "reut2-015.sgm"])
    return pd.concat([frame[frame["split"] == "train"].head(300), frame[frame["split"] == "test"].head(100)])


@pytest.fixture(scope="module")
def counts(reuters_slice, config):
    return {family: feature_counts(reuters_slice, system, config)
            for family, system in (("ngram", "ngram-ln"), ("fsa", "FSA-ln"))}


def mean_cosine(counts, a: str, b: str, c: float) -> float:
    """Mean cosine between the L2-normalised training rows of two systems built from the same counts."""
    x, y = weighted_features(counts, a, c).train, weighted_features(counts, b, c).train
    return float(np.asarray(x.multiply(y).sum(axis=1)).ravel().mean())


def test_default_c_is_a_fixed_pseudo_count(config):
    # The data (cross-validation) must not choose the c that turns ln into uniform.
    assert config["c"] == 1


@pytest.mark.parametrize(("a", "b"), DISTINCT)
def test_systems_the_paper_separates_differ_beyond_a_rescaling(counts, config, a, b):
    family = "fsa" if a.startswith("FSA") else "ngram"
    assert mean_cosine(counts[family][0], a, b, float(config["c"])) < SAME


@pytest.mark.parametrize(("a", "b"), DISTINCT)
def test_the_guard_catches_a_flat_weighting(counts, a, b):
    # c = 1000, the top of the grid that cross-validation chose: the weighted systems are the uniform one.
    family = "fsa" if a.startswith("FSA") else "ngram"
    assert mean_cosine(counts[family][0], a, b, 1000.0) > SAME


def test_weight_range_at_the_default_c_obeys_corollary_4(counts, config):
    fsa = counts["fsa"][0]
    c, t, size = float(config["c"]), config["t"], fsa.alphabet_size
    ln = weight_range(fsa, "FSA-ln", c)
    assert ln["weight"] == "-ln p"
    # Corollary 4: p_u(x) >= c / (|A| (c + t)), so -ln p <= ln(|A| (c + t) / c); and p < 1.
    assert 0 < ln["min"] < ln["max"] <= np.log(size * (c + t) / c)
    assert ln["max_over_min"] > 3  # at c = 1000 the ratio is about 1.03 on the full corpus
    flat = weight_range(fsa, "FSA-ln", 1000.0)
    assert flat["max_over_min"] < 1.1
    inverse = weight_range(counts["ngram"][0], "ngram-nonuniform", c)
    assert inverse["weight"] == "1/p" and 1 < inverse["min"] < inverse["max"]
    uniform = weight_range(fsa, "FSA-uniform", None)
    assert uniform == {"weight": "|A|", "min": float(size), "max": float(size), "max_over_min": 1.0}


def test_default_svm_is_svmlight_hinge_with_an_unregularised_bias(config):
    assert config["loss"] == "hinge" and config["intercept_scaling"] >= 10


def _exact(x_train, x_test, y_train):
    """libsvm on the linear Gram matrix: hinge loss, C, and a bias left out of the norm (as SVMlight)."""
    gram, cross = (x_train @ x_train.T).toarray(), (x_test @ x_train.T).toarray()
    return SVC(kernel="precomputed", C=1.0).fit(gram, y_train).decision_function(cross)


@pytest.mark.parametrize("system", ["ngram-ln", "FSA-ln"])
def test_default_svm_agrees_with_the_exact_unregularised_bias_solver(counts, reuters_slice, config, system):
    family = "fsa" if system.startswith("FSA") else "ngram"
    count, train, test = counts[family]
    features = weighted_features(count, system, float(config["c"]))
    y_train, y_test = category_labels(train, ["earn"])["earn"], category_labels(test, ["earn"])["earn"]
    exact = _exact(features.train, features.test, y_train)
    scores, decision = run_category(features.train, features.test, y_train, y_test,
                                    **{k: config[k] for k in SVM_KEYS}, seed=1)
    assert scores["average_precision"] == pytest.approx(thresholded_average_precision(y_test, exact), abs=1e-3)
    np.testing.assert_allclose(decision, exact, atol=0.02)
    # liblinear's defaults (squared hinge, bias penalised like a weight) give other decision values.
    _, other = run_category(features.train, features.test, y_train, y_test,
                            **{**{k: config[k] for k in SVM_KEYS}, "loss": "squared_hinge", "intercept_scaling": 1.0},
                            seed=1)
    assert np.abs(other - exact).max() > 0.05
