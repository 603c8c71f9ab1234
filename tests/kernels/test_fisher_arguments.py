"""The Fisher API's argument checks: an empty training corpus and a bad initial count name the argument."""

from __future__ import annotations

import numpy as np
import pytest

from kernbench.kernels.fisher import fsa_counts, fsa_features, ngram_counts, ngram_features, transition_probabilities


def doc(text):
    return np.frombuffer(text.encode(), dtype=np.uint8)


def ngram(train, c=1.0):
    return ngram_features(train, [doc("hello world")], k=3, min_count=1, weighting="nonuniform", c=c, alphabet_size=256)


def fsa(train, c=1.0):
    return fsa_features(train, [doc("hello world")], t=1, weighting="nonuniform", c=c, alphabet_size=256)


@pytest.mark.parametrize("features", [ngram, fsa])
@pytest.mark.parametrize("c", [float("nan"), float("inf"), 0.0, -1.0, "one"])
def test_initial_count_that_is_not_a_positive_number_is_named(features, c):
    with pytest.raises(ValueError, match=rf"{features.__name__}_features: the initial count c must be a finite number > 0, got c="):
        features([doc("hello there")], c=c)


def test_transition_probabilities_refuse_a_nan_initial_count():
    with pytest.raises(ValueError, match="c=nan"):
        transition_probabilities([1.0], [2.0], c=float("nan"), alphabet_size=4)


@pytest.mark.parametrize("features", [ngram, fsa])
def test_empty_training_corpus_is_named(features):
    with pytest.raises(ValueError, match=r"the training corpus \(train\) is empty"):
        features([])


@pytest.mark.parametrize(
    ("features", "train", "message"),
    [
        (ngram, [doc(""), doc("ab")], r"ngram_features: no training document \(train\) has 3 symbol\(s\) \(the longest has 2\)"),
        (fsa, [doc(""), doc("")], r"fsa_features: no training document \(train\) has 1 symbol\(s\) \(the longest has 0\)"),
    ],
)
def test_training_corpus_without_a_transition_is_named(features, train, message):
    with pytest.raises(ValueError, match=message):
        features(train)


def test_the_counts_check_their_corpus_too():
    with pytest.raises(ValueError, match=r"ngram_counts: the training corpus \(train\) is empty"):
        ngram_counts([], [doc("abc")], k=3, min_count=1, alphabet_size=256)
    with pytest.raises(ValueError, match=r"fsa_counts: the training corpus \(train\) is empty"):
        fsa_counts([], [doc("abc")], t=1, alphabet_size=256)


def test_a_usable_corpus_still_gives_features():
    feats = ngram([doc("hello there"), doc("ab")])
    assert feats.train.shape[0] == 2 and feats.test.shape[0] == 1 and feats.train.shape[1] > 0
