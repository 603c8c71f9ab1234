"""Any-gram kernels on unusual input: any integer token ids, and the scikit-learn estimator contract."""

from __future__ import annotations

import numpy as np
import pytest

from kernbench.kernels.anygram import anygram_gram
from kernbench.kernels.anygram_features import anygram_features


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
