"""Any-gram kernels on unusual input: any integer token ids, and the scikit-learn estimator contract."""

from __future__ import annotations

import numpy as np
import pytest

from kernbench.kernels.anygram import anygram_gram
from kernbench.kernels.anygram_features import anygram_features
from kernbench.kernels.anygram_sklearn import AnyGramKernel


@pytest.mark.parametrize(
    "X",
    [
        [np.array([0, -1]), np.array([-1, 2])],  # prev * width + token collided: bigram (0, -1) read as (-1, 2)
        [np.array([-3, -2, -3, -2]), np.array([-2, -3]), np.array([5, -2, -3])],
        [np.array([2**40, 7, 2**40]), np.array([7, 2**40]), np.array([-(2**40), 7])],
    ],
)
def test_sm_fast_path_equals_the_dp_for_any_integer_ids(X):
    dp = anygram_gram(X, variant="sm", lam=0.4, method="dp")
    np.testing.assert_allclose(anygram_gram(X, variant="sm", lam=0.4), dp, rtol=1e-12)
    np.testing.assert_allclose(anygram_gram(X[:1], X[1:], variant="sm", lam=0.4), dp[:1, 1:], rtol=1e-12)
    phi = anygram_features(X, variant="sm", lam=0.4)
    np.testing.assert_allclose((phi @ phi.T).toarray(), dp, rtol=1e-12)


def test_sm_negative_ids_hand_worked():
    # [0, -1] and [-1, 2] share the unigram -1 only: lam; no bigram in common.
    gram = anygram_gram([np.array([0, -1]), np.array([-1, 2])], variant="sm", lam=0.4)
    assert gram[0, 1] == pytest.approx(0.4, abs=1e-15)


# ------------------------------------------------------------------ the scikit-learn estimator

#: scikit-learn's checks that need no 2-D array input; the rest feed (samples x features) arrays, which the
#: estimator tags declare this transformer does not take.
API_CHECKS = (
    "check_estimator_cloneable", "check_estimator_tags_renamed", "check_valid_tag_types", "check_estimator_repr",
    "check_no_attributes_set_in_init", "check_do_not_raise_errors_in_init_or_set_params", "check_mixin_order",
    "check_parameters_default_constructible", "check_get_params_invariance", "check_set_params",
    "check_estimators_unfitted",
)
SENTENCES = [np.array([0, 1, 2]), np.array([0, 1]), np.array([3, 4]), np.array([4, 3, 4]), np.array([], dtype=np.int64)]


def test_estimator_tags_declare_sentences_not_a_2d_array_and_every_check_run_passes():
    import warnings

    from sklearn.utils import get_tags
    from sklearn.utils.estimator_checks import check_estimator

    tags = get_tags(AnyGramKernel())
    assert not tags.input_tags.two_d_array and not tags.input_tags.sparse and tags.requires_fit
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the SkipTestWarning of the 2-D array checks
        results = check_estimator(AnyGramKernel(variant="sm"), on_fail=None)
    assert [r["status"] for r in results] == ["passed"] * len(results) and len(results) >= 1


@pytest.mark.parametrize("check", API_CHECKS)
@pytest.mark.parametrize("variant", ["sm", "wess"])
def test_scikit_learn_api_checks_that_take_no_array_input_pass(check, variant):
    from sklearn.utils import estimator_checks

    getattr(estimator_checks, check)("AnyGramKernel", AnyGramKernel(variant=variant))


def test_fit_on_no_sentence_raises_and_transform_before_fit_raises_not_fitted():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(ValueError, match="AnyGramKernel.fit: X holds no sentence"):
        AnyGramKernel(variant="sm").fit([])
    with pytest.raises(ValueError, match="X holds no sentence"):
        AnyGramKernel(variant="sm").fit(iter([]))
    with pytest.raises(NotFittedError):
        AnyGramKernel(variant="sm").transform(SENTENCES)
    with pytest.raises(TypeError, match="AnyGramKernel.fit: X must be an iterable of sentences, got int"):
        AnyGramKernel(variant="sm").fit(3)
    with pytest.raises(TypeError, match="got str"):
        AnyGramKernel(variant="sm").fit("a sentence")


def test_fit_and_transform_accept_any_iterable_of_sequences():
    import pandas as pd

    expected = AnyGramKernel(variant="sm", normalize=True).fit(SENTENCES).transform(SENTENCES[:3])
    as_lists = [s.tolist() for s in SENTENCES]
    for train, test in [
        (iter(SENTENCES), (s for s in SENTENCES[:3])),
        (tuple(tuple(s) for s in as_lists), [tuple(s) for s in as_lists[:3]]),
        (pd.Series(SENTENCES), pd.Series(as_lists[:3], index=[7, 8, 9])),
    ]:
        model = AnyGramKernel(variant="sm", normalize=True).fit(train)
        np.testing.assert_allclose(model.transform(test), expected, rtol=1e-15)
        assert len(model.X_fit_) == len(SENTENCES)
    gram = AnyGramKernel(variant="sm").fit_transform(iter(SENTENCES))
    np.testing.assert_allclose(gram, anygram_gram(SENTENCES, variant="sm", lam=0.4), rtol=1e-15)


def test_fitting_behaves_as_scikit_learn_expects_on_sentences():
    import pickle

    from sklearn.base import clone

    model = AnyGramKernel(variant="sm", lam=0.5)
    params = model.get_params()
    assert model.fit(SENTENCES) is model and model.get_params() == params  # fit returns self, keeps the params
    first = model.transform(SENTENCES)
    np.testing.assert_array_equal(model.fit(SENTENCES).transform(SENTENCES), first)  # idempotent
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(model)).transform(SENTENCES), first)
    order = np.array([3, 0, 4, 2, 1])
    np.testing.assert_array_equal(model.transform([SENTENCES[i] for i in order]), first[order])  # order invariance
    np.testing.assert_array_equal(model.transform(SENTENCES[1:2]), first[1:2])  # subset invariance
    assert not hasattr(clone(model), "X_fit_")


# ------------------------------------------------------------------ long texts


def _corpus(seed, n, longest):
    rng = np.random.default_rng(seed)
    return [rng.integers(-2, 6, rng.integers(0, longest)) for _ in range(n)]


@pytest.mark.parametrize(("budget", "long_length"), [(1500, 10**6), (3000, 10**6), (10**6, 12), (1500, 20), (1, 0)])
def test_sm_gram_in_runs_and_by_the_dp_for_long_sentences_is_the_same_matrix(budget, long_length):
    from kernbench.kernels.anygram import _gram_sm_fast

    X, Y = _corpus(3, 45, 30), _corpus(4, 20, 30)
    whole, whole_xy = _gram_sm_fast(X, None, 0.4), _gram_sm_fast(X, Y, 0.4)
    split, split_xy = _gram_sm_fast(X, None, 0.4, budget, long_length), _gram_sm_fast(X, Y, 0.4, budget, long_length)
    np.testing.assert_array_equal(split, split.T)
    if long_length > 30:  # runs only: the same sums in the same order
        np.testing.assert_array_equal(split, whole)
        np.testing.assert_array_equal(split_xy, whole_xy)
    dp, dp_xy = anygram_gram(X, variant="sm", lam=0.4, method="dp"), anygram_gram(X, Y, variant="sm", lam=0.4, method="dp")
    np.testing.assert_allclose(split, dp, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(split_xy, dp_xy, rtol=1e-12, atol=1e-12)


LONG_TEXT = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (2000 << 20, resource.RLIM_INFINITY))
import numpy as np
from kernbench.kernels.anygram import anygram_gram, anygram_kernel
rng = np.random.default_rng(0)
X = [rng.integers(0, 50, rng.integers(1, 30)) for _ in range(300)] + [rng.integers(0, 50, 20000)]
gram = anygram_gram(X, variant="sm", lam=0.4)
print(gram[-1, -1], anygram_kernel(X[-1], X[-1], variant="sm", lam=0.4), gram[-1, 7], anygram_kernel(X[-1], X[7], variant="sm", lam=0.4))
"""


def test_sm_gram_of_a_corpus_with_a_20000_token_text_fits_in_2_gb():
    import subprocess
    import sys

    # its n-gram map alone would hold 200 million entries (about 20 GB)
    run = subprocess.run([sys.executable, "-c", LONG_TEXT], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    long_long, dp_long, long_short, dp_short = map(float, run.stdout.split())
    assert long_long == pytest.approx(dp_long, rel=1e-12) and long_short == pytest.approx(dp_short, rel=1e-12)


def test_sm_feature_map_of_a_text_too_long_is_refused_before_it_is_built():
    from kernbench.kernels.anygram_features import PRIMAL_SM_NGRAMS

    length = int(np.sqrt(2 * PRIMAL_SM_NGRAMS)) + 1
    with pytest.raises(ValueError, match=rf"sentence 1 has {length:,} tokens.*anygram.training: precomputed"):
        anygram_features([np.array([1, 2]), np.zeros(length, dtype=np.int64)], variant="sm", lam=0.4)
