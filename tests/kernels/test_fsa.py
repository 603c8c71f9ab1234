"""The frequent-set FSA against brute force: Σ_t, its closure, δ, transition keys and |Σ_t|."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernbench.data import reuters
from kernbench.kernels.fisher import Alphabet, normalise_text
from kernbench.kernels.fsa import frequent_strings, run_fsa


def brute_states(train, t, cap=None):
    """Every substring occurring at least t times in the training documents, by enumeration."""
    counts: dict[tuple, int] = {}
    for doc in train:
        d = tuple(int(c) for c in doc)
        for i in range(len(d)):
            for j in range(i + 1, len(d) + 1):
                counts[d[i:j]] = counts.get(d[i:j], 0) + 1
    states = {s for s, n in counts.items() if n >= t} | {()}
    return {s for s in states if cap is None or len(s) <= cap}


def longest_suffix(ux, states):
    """δ by definition: the longest suffix of ux in the state set."""
    return next(ux[k:] for k in range(len(ux) + 1) if ux[k:] in states)


def check_against_brute_force(train, test, t, cap=None):
    states = brute_states(train, t, cap)
    run = run_fsa(train, test, t=t, max_state_length=cap)
    assert run.n_states == len(states)
    assert frequent_strings(train, t=t, max_state_length=cap) == states
    transition_keys: dict[tuple, int] = {}
    state_keys: dict[tuple, int] = {}
    for i, doc in enumerate(list(train) + list(test)):
        d = tuple(int(c) for c in doc)
        state = ()
        for j, x in enumerate(d):
            position = run.offsets[i] + j
            nxt = longest_suffix(state + (x,), states)
            assert run.state_length[position] == len(nxt)
            assert bool(run.initial[position]) == (state == d[:j])
            # One key per distinct transition string ux and per distinct source state u.
            assert transition_keys.setdefault(state + (x,), int(run.transition[position])) == run.transition[position]
            assert state_keys.setdefault(state, int(run.source[position])) == run.source[position]
            state = nxt
    assert len(set(transition_keys.values())) == len(transition_keys)
    assert len(set(state_keys.values())) == len(state_keys)
    assert state_keys.get((), 0) == 0


def codes(*texts):
    return [np.frombuffer(t.encode(), dtype=np.uint8).copy() for t in texts]


def test_hand_worked_corpus():
    # "abab", "abba" at t = 2: a 4x, b 4x, ab 3x, ba 2x; bb, aba, bab, abb, bba once.
    train = codes("abab", "abba")
    assert frequent_strings(train, t=2) == {(), (97,), (98,), (97, 98), (98, 97)}
    run = run_fsa(train, codes("bbab"), t=2)
    assert run.n_states == 5
    # abab: ε -a-> a -b-> ab -a-> ba -b-> ab ; abba: ... ab -b-> b -a-> ba ; test bbab: b, b, ba, ab.
    assert run.state_length.tolist() == [1, 2, 2, 2, 1, 2, 1, 2, 1, 1, 2, 2]
    assert run.initial.tolist() == [True, True, True, False, True, True, True, False, True, True, False, False]


@pytest.mark.parametrize("t", [1, 2, 3, 5])
@pytest.mark.parametrize("cap", [None, 2])
def test_random_corpora_match_brute_force(t, cap):
    rng = np.random.default_rng(t * 10 + (cap or 0))
    for _ in range(25):
        alphabet = int(rng.integers(1, 4))
        train = [rng.integers(1, alphabet + 1, rng.integers(0, 25)).astype(np.uint8) for _ in range(rng.integers(1, 5))]
        test = [rng.integers(1, alphabet + 2, rng.integers(0, 25)).astype(np.uint8) for _ in range(rng.integers(0, 3))]
        if sum(map(len, train + test)) == 0:
            continue
        check_against_brute_force(train, test, t, cap)


@settings(max_examples=60, deadline=None)
@given(
    train=st.lists(st.text(alphabet="abc", max_size=20), min_size=1, max_size=5),
    test=st.lists(st.text(alphabet="abcd", max_size=20), max_size=3),
    t=st.integers(1, 4),
)
def test_property_against_brute_force(train, test, t):
    if not "".join(train + test):
        return
    check_against_brute_force(codes(*train), codes(*test), t)


def test_state_set_is_closed_under_substrings():
    rng = np.random.default_rng(7)
    train = [rng.integers(1, 4, 60).astype(np.uint8) for _ in range(6)]
    states = frequent_strings(train, t=3)
    assert len(states) > 20
    for s in states:
        for i in range(len(s)):
            for j in range(i, len(s) + 1):
                assert s[i:j] in states


def test_real_reuters_text_matches_brute_force(mirror):
    """Real documents (punctuation, digits, repeated boilerplate) through the same checks."""
    paths = sorted((mirror / "reuters21578").glob("reut2-000.sgm"))
    frame = reuters.prepare(paths)
    texts = [normalise_text(x)[:160] for x in frame["text"].head(30)]
    alphabet = Alphabet.from_texts(texts[:22])
    encoded = alphabet.encode_all(texts)
    check_against_brute_force(encoded[:22], encoded[22:], t=3)
    check_against_brute_force(encoded[:22], encoded[22:], t=10, cap=4)


def test_rejects_separator_code_and_bad_threshold():
    with pytest.raises(ValueError, match="symbol codes"):
        run_fsa([np.array([1, 0, 2], dtype=np.uint8)], [], t=2)
    with pytest.raises(ValueError, match="t must be"):
        run_fsa(codes("ab"), [], t=0)
