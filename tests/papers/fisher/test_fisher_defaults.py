"""Table 1's systems are what their names say at the configured defaults, on a real Reuters slice.

The ln and 1/p weightings depend on the initial count c of Eq. 2; a large c
makes them flat, and the system is then the uniform one under another name.
The SVM solves SVMlight's default problem: the hinge loss with a bias that
is not regularised.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
import yaml
from sklearn.svm import SVC

from kernbench.data import reuters
from kernbench.metrics import thresholded_average_precision
from kernbench.papers.fisher.experiment import (
    SVM_KEYS,
    category_labels,
    feature_counts,
    run_category,
    svm_decision,
    weight_range,
    weighted_features,
)

REPO_ROOT = Path(__file__).resolve().parents[3]
#: Pairs of systems the paper reports separately.
DISTINCT = [("FSA-ln", "FSA-uniform"), ("ngram-ln", "ngram-uniform"), ("ngram-nonuniform", "ngram-uniform")]
#: Mean cosine between two systems' training rows above which they are one system up to a rescaling.
SAME = 0.98
#: Length scale of the translation in test_the_default_bias_is_not_regularised.
SHIFT = 2.0


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


def test_default_svm_is_svmlights_problem(config):
    # SVMlight's defaults: the hinge loss and a bias outside the norm (libsvm on the linear Gram solves that problem).
    assert config["solver"] == "libsvm" and config["loss"] == "hinge"


def _translated(x, shift: float):
    """Every row moved by the same vector (shift on every column): a linear SVM with a free bias does not notice."""
    dense = x.toarray()
    return sp.csr_matrix(dense + shift * np.linspace(0.0, 1.0, dense.shape[1]))


def test_the_default_bias_is_not_regularised(counts, config):
    # With b outside the norm, w·(x + v) + b is matched by the same w and b' = b - w·v: the decision values of a
    # translated training and test set are the same. A regularised bias (liblinear) pays for b' and moves.
    count, train, test = counts["ngram"]
    features = weighted_features(count, "ngram-ln", float(config["c"]))
    x_train, x_test = features.train[:, :400], features.test[:, :400]
    y_train = category_labels(train, ["earn"])["earn"]
    svm = {k: config[k] for k in SVM_KEYS}
    before = svm_decision(x_train, y_train, x_test, **svm, seed=1)
    after = svm_decision(_translated(x_train, SHIFT), y_train, _translated(x_test, SHIFT), **svm, seed=1)
    np.testing.assert_allclose(after, before, atol=5e-3)
    liblinear = {**svm, "solver": "liblinear", "loss": "hinge", "intercept_scaling": 1.0}
    moved = svm_decision(_translated(x_train, SHIFT), y_train, _translated(x_test, SHIFT), **liblinear, seed=1)
    assert np.abs(moved - svm_decision(x_train, y_train, x_test, **liblinear, seed=1)).max() > 0.03


@pytest.mark.parametrize("system", ["ngram-ln", "FSA-ln"])
def test_default_svm_is_libsvm_on_the_linear_gram(counts, reuters_slice, config, system):
    family = "fsa" if system.startswith("FSA") else "ngram"
    count, train, test = counts[family]
    features = weighted_features(count, system, float(config["c"]))
    y_train, y_test = category_labels(train, ["earn"])["earn"], category_labels(test, ["earn"])["earn"]
    gram, cross = (features.train @ features.train.T).toarray(), (features.test @ features.train.T).toarray()
    exact = SVC(kernel="precomputed", C=config["C"]).fit(gram, y_train).decision_function(cross)
    scores, decision = run_category(features.train, features.test, y_train, y_test,
                                    **{k: config[k] for k in SVM_KEYS}, seed=1)
    np.testing.assert_allclose(decision, exact, atol=1e-9)
    assert scores["average_precision"] == pytest.approx(thresholded_average_precision(y_test, exact))


def test_libsvm_refuses_the_squared_hinge(config):
    x = sp.csr_matrix(np.eye(4))
    with pytest.raises(ValueError, match="fisher.loss = 'squared_hinge' needs fisher.solver = liblinear"):
        svm_decision(x, np.array([True, False, True, False]), x, **{**{k: config[k] for k in SVM_KEYS},
                                                                   "loss": "squared_hinge"}, seed=0)
    with pytest.raises(ValueError, match="fisher.solver = 'svmlight'"):
        svm_decision(x, np.array([True, False, True, False]), x, **{**{k: config[k] for k in SVM_KEYS},
                                                                   "solver": "svmlight"}, seed=0)
