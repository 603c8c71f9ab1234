"""n-gram and FSA Fisher features: hand-worked counts and weights, the uniform-kernel identity, brute force."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from kernbench.kernels.fisher import (
    UNKNOWN,
    Alphabet,
    fisher_weights,
    fsa_features,
    ngram_features,
    normalise_text,
    transition_probabilities,
)


def test_normalise_text_lowercases_and_collapses_whitespace():
    assert normalise_text("  BAHIA Cocoa\nREVIEW\t\t x  ") == "bahia cocoa review x"
    assert normalise_text("A  B", lowercase=False, collapse_whitespace=False) == "A  B"


def test_alphabet_codes_sorted_characters_and_marks_unknown():
    alphabet = Alphabet.from_texts(["ba", "ca"])
    assert alphabet.symbols == "abc" and len(alphabet) == 3
    assert alphabet.encode("cab").tolist() == [3, 1, 2]
    assert alphabet.encode("dé").tolist() == [UNKNOWN, UNKNOWN]
    assert alphabet.encode("").tolist() == []


def test_eq2_probabilities_and_weights():
    p = transition_probabilities([3, 0], [3, 3], c=1.0, alphabet_size=2)
    np.testing.assert_allclose(p, [4 / 5, 1 / 5])
    np.testing.assert_allclose(fisher_weights("nonuniform", f_ux=[3], f_u=[3], c=1.0, alphabet_size=2), [5 / 4])
    np.testing.assert_allclose(fisher_weights("ln", f_ux=[3], f_u=[3], c=1.0, alphabet_size=2), [-math.log(0.8)])
    np.testing.assert_allclose(fisher_weights("uniform", f_ux=[3, 1], f_u=[3, 3], c=1.0, alphabet_size=7), [7, 7])
    with pytest.raises(ValueError, match="c must be"):
        transition_probabilities([1], [1], c=0.0, alphabet_size=2)
    with pytest.raises(ValueError, match="weighting"):
        fisher_weights("cubic", f_ux=[1], f_u=[1], c=1.0, alphabet_size=2)


# Hand-worked corpus, k = 2, alphabet {a, b}, c = 1.
# Training 2-grams: "abab" -> ab, ba, ab ; "abba" -> ab, bb, ba.  Counts ab 3, ba 2, bb 1.
# States: a leaves 3 times (ab 3); b leaves 3 times (ba 2, bb 1).
# Eq. 2: p_a(b) = 4/5, p_b(a) = 3/5, p_b(b) = 2/5.  min_count 2 prunes bb.
# Columns in key order: ab, ba.  Test "bab": ba 1, ab 1; test "aab": aa (unseen) 1, ab 1.
HAND_TRAIN = ["abab", "abba"]
HAND_TEST = ["bab", "aab"]
HAND_TF = np.array([[2, 1], [1, 1], [1, 1], [1, 0]], dtype=float)
HAND_WEIGHTS = {
    "uniform": np.array([2.0, 2.0]),
    "nonuniform": np.array([5 / 4, 5 / 3]),
    "ln": np.array([-math.log(4 / 5), -math.log(3 / 5)]),
}


def _hand_codes():
    alphabet = Alphabet.from_texts(HAND_TRAIN)
    return alphabet.encode_all(HAND_TRAIN), alphabet.encode_all(HAND_TEST), len(alphabet)


@pytest.mark.parametrize("weighting", ["uniform", "nonuniform", "ln"])
def test_ngram_features_match_hand_worked_counts_and_weights(weighting):
    train, test, size = _hand_codes()
    raw = ngram_features(train, test, k=2, min_count=2, weighting=weighting, c=1.0, alphabet_size=size, normalise=False)
    expected = HAND_TF * HAND_WEIGHTS[weighting]
    np.testing.assert_allclose(raw.train.toarray(), expected[:2])
    np.testing.assert_allclose(raw.test.toarray(), expected[2:])
    assert raw.info["features"] == 2 and raw.info["ngrams_seen"] == 3
    unit = ngram_features(train, test, k=2, min_count=2, weighting=weighting, c=1.0, alphabet_size=size)
    norms = np.linalg.norm(expected, axis=1, keepdims=True)
    np.testing.assert_allclose(unit.train.toarray(), (expected / norms)[:2])
    np.testing.assert_allclose(unit.test.toarray(), (expected / norms)[2:])


def _ngram_kernel(a: str, b: str, k: int) -> int:
    """Plain n-gram kernel: sum over shared k-grams of the product of their counts."""
    ca = Counter(a[i : i + k] for i in range(len(a) - k + 1))
    cb = Counter(b[i : i + k] for i in range(len(b) - k + 1))
    return sum(n * cb[g] for g, n in ca.items())


@pytest.mark.parametrize("k", [2, 3, 5])
def test_uniform_fisher_kernel_is_alphabet_squared_times_ngram_kernel(k):
    rng = np.random.default_rng(k)
    train = ["".join(rng.choice(list("abcd "), rng.integers(k, 60))) for _ in range(8)]
    test = ["".join(rng.choice(list("abcde"), rng.integers(0, 40))) for _ in range(4)]
    alphabet = Alphabet.from_texts(train)
    features = ngram_features(
        alphabet.encode_all(train),
        alphabet.encode_all(test),
        k=k,
        min_count=1,
        weighting="uniform",
        c=1.0,
        alphabet_size=len(alphabet),
        normalise=False,
    )
    x = np.vstack([features.train.toarray(), features.test.toarray()])
    docs = train + test
    # Section 2: with p = 1/|A| the Fisher score is |A| tf, so the kernel is |A|^2 times the n-gram kernel
    # (on the training n-grams: test-only n-grams are not features, and cannot be shared with training).
    expected = np.array([[_ngram_kernel(a, b, k) for b in docs] for a in docs], dtype=float)
    seen = {g for d in train for g in (d[i : i + k] for i in range(len(d) - k + 1))}
    for i, a in enumerate(docs):
        for j, b in enumerate(docs):
            if i >= len(train) and j >= len(train):
                ca = Counter(g for g in (a[m : m + k] for m in range(len(a) - k + 1)) if g in seen)
                cb = Counter(g for g in (b[m : m + k] for m in range(len(b) - k + 1)) if g in seen)
                expected[i, j] = sum(n * cb[g] for g, n in ca.items())
    np.testing.assert_allclose(x @ x.T, len(alphabet) ** 2 * expected)


def _brute_fsa_features(train, test, t, c, weighting, size):
    """Fisher score dictionaries of every document, by simulating F_t with explicit strings."""
    counts = Counter(d[i:j] for d in train for i in range(len(d)) for j in range(i + 1, len(d) + 1))
    states = {s for s, n in counts.items() if n >= t} | {""}

    def walk(d):
        state = ""
        for j, x in enumerate(d):
            yield state, x, state == d[:j]
            ux = state + x
            state = next(ux[m:] for m in range(len(ux) + 1) if ux[m:] in states)

    f_ux, f_u = Counter(), Counter()
    for d in train:
        for u, x, initial in walk(d):
            if not initial:
                f_ux[(u, x)] += 1
                f_u[u] += 1
    vectors = []
    for d in train + test:
        tf = Counter((u, x) for u, x, _ in walk(d))
        vec = {}
        for (u, x), n in tf.items():
            p = (f_ux[(u, x)] + c) / (size * c + f_u[u])
            vec[(u, x)] = n * {"uniform": size, "nonuniform": 1 / p, "ln": -math.log(p)}[weighting]
        norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
        vectors.append({key: v / norm for key, v in vec.items()})
    columns = {(u, x) for d in train for u, x, _ in walk(d)}
    return [{key: v for key, v in vec.items() if key in columns} for vec in vectors]


@pytest.mark.parametrize("weighting", ["uniform", "nonuniform", "ln"])
@pytest.mark.parametrize("t", [2, 3])
def test_fsa_features_match_brute_force_gram_matrix(weighting, t):
    rng = np.random.default_rng(t)
    train = ["".join(rng.choice(list("abc"), rng.integers(1, 40))) for _ in range(7)]
    test = ["".join(rng.choice(list("abcd"), rng.integers(1, 30))) for _ in range(4)]
    alphabet = Alphabet.from_texts(train)
    features = fsa_features(
        alphabet.encode_all(train), alphabet.encode_all(test), t=t, weighting=weighting, c=0.5, alphabet_size=3
    )
    x = np.vstack([features.train.toarray(), features.test.toarray()])
    vectors = _brute_fsa_features(train, test, t, 0.5, weighting, 3)
    expected = np.array([[sum(v * b.get(key, 0.0) for key, v in a.items()) for b in vectors] for a in vectors])
    np.testing.assert_allclose(x @ x.T, expected, atol=1e-12)
    assert features.train.shape[1] == len({key for vec in vectors[: len(train)] for key in vec})
    # Column-permutation-free check of the values themselves: sorted non-zeros per row.
    for row, vec in zip(x, vectors):
        np.testing.assert_allclose(np.sort(row[row != 0]), np.sort([v for v in vec.values() if v != 0]))
