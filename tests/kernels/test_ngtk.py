"""NGTK: the Figure 1 tree and the subset-tree kernel against a brute-force fragment count; the fast path
against the tree DP and against a count of shared n-grams."""

from __future__ import annotations

import re
from itertools import product

import numpy as np
import pytest

from kernbench.kernels.ngtk import (
    AT_LEAF, ROOT, X_LEAF, anygram_tree, ngtk_diag, ngtk_gram, ngtk_kernel, tree_string,
)

METHODS = ["auto", "dp"]


def bracket(labels, children, words, n=0):
    name = {ROOT: "root", X_LEAF: "X", AT_LEAF: "AT"}.get(int(labels[n]), None) or words[labels[n]]
    kids = [c for c in children[n] if c >= 0]
    return f"[{name}" + (" " + "".join(bracket(labels, children, words, c) for c in kids) if kids else "") + "]"


def test_figure_1_tree():
    words = ["Good", ",", "fast", "service", "."]
    labels, children = anygram_tree(range(5))
    assert labels.size == 3 * 5 + 1
    assert bracket(labels, children, words) == (
        "[root [Good [X]][Good [, [X]][, [fast [X]][fast [service [X]][service [. [X]][.]]]]]]"
    )
    labels, children = anygram_tree(range(5), aspect_mask=[0, 0, 0, 1, 0])
    assert "[service [AT]]" in bracket(labels, children, words)
    assert bracket(labels, children, words).count("[AT]") == 1


@pytest.mark.parametrize("n", [0, 1, 2, 7, 40])
def test_tree_has_3n_plus_1_nodes_children_after_parents(n):
    labels, children = anygram_tree(np.arange(n))
    assert labels.size == children.shape[0] == 3 * n + 1
    for parent, kids in enumerate(children):
        assert all(c > parent for c in kids if c >= 0)
    # Every node but the root has exactly one parent.
    kids = children[children >= 0]
    assert sorted(kids.tolist()) == list(range(1, 3 * n + 1))


def fragments(labels, children, n):
    """Every subset-tree fragment rooted at n: (label, None) is a cut node, (label, (kids...)) an expanded one."""
    kids = [c for c in children[n] if c >= 0]
    if not kids:
        return []
    options = [[(int(labels[c]), None)] + fragments(labels, children, c) for c in kids]
    return [(int(labels[n]), combo) for combo in product(*options)]


def size(fragment):
    return 0 if fragment[1] is None else 1 + sum(size(c) for c in fragment[1])


def fragments_match(f1, f2, same):
    if not same(f1[0], f2[0]) or (f1[1] is None) != (f2[1] is None):
        return False
    if f1[1] is None:
        return True
    return len(f1[1]) == len(f2[1]) and all(fragments_match(a, b, same) for a, b in zip(f1[1], f2[1]))


def brute_ngtk(t1, t2, lam, same):
    (l1, c1), (l2, c2) = t1, t2
    all1 = [f for n in range(l1.size) for f in fragments(l1, c1, n)]
    all2 = [f for n in range(l2.size) for f in fragments(l2, c2, n)]
    return sum(lam ** size(f1) for f1 in all1 for f2 in all2 if fragments_match(f1, f2, same))


@pytest.mark.parametrize("method", METHODS)
def test_hand_worked_pair(method):
    # root(1 fragment-pair family) 6, P_1 1, C_1 2, P_2 1 with lam = 1 (see module docstring).
    assert ngtk_kernel([1, 2], [1, 2], variant="sm", lam=1.0, method=method) == pytest.approx(10.0)


@pytest.mark.parametrize("method", METHODS)
def test_hand_worked_pair_with_an_aspect(method):
    # lam = 0.5, the second word an aspect in s1 only: p(1,1) = 0.5, p(2,2) = 0 (AT against X),
    # c(1,1) = 0.5 (1 + 0)(1 + 0) = 0.5, root = 0.5 (1 + 0.5)(1 + 0.5) = 1.125; in all 2.125.
    got = ngtk_kernel([1, 2], [1, 2], variant="sm", lam=0.5, aspect1=[0, 1], aspect2=[0, 0], method=method)
    assert got == pytest.approx(2.125, rel=1e-15)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("seed", range(12))
def test_sm_matches_brute_force(seed, method):
    rng = np.random.default_rng(seed)
    s1, s2 = rng.integers(0, 3, rng.integers(0, 5)), rng.integers(0, 3, rng.integers(0, 5))
    m1, m2 = rng.integers(0, 2, s1.size), rng.integers(0, 2, s2.size)
    lam = float(rng.uniform(0.1, 1.0))
    want = brute_ngtk(anygram_tree(s1, m1), anygram_tree(s2, m2), lam, lambda a, b: a == b)
    got = ngtk_kernel(s1, s2, variant="sm", lam=lam, aspect1=m1, aspect2=m2, method=method)
    assert got == pytest.approx(want, rel=1e-12, abs=1e-300)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("seed", range(12))
def test_west_matches_brute_force(seed, method):
    rng = np.random.default_rng(100 + seed)
    vectors = rng.normal(size=(4, 3))
    vectors[3] = 0.0
    units = np.array([v / np.linalg.norm(v) if np.linalg.norm(v) else v for v in vectors])
    theta = float(rng.choice([-0.3, 0.2, 0.6]))

    def same(a, b):
        return units[a] @ units[b] >= theta if a >= 0 and b >= 0 else a == b

    s1, s2 = rng.integers(0, 4, rng.integers(1, 5)), rng.integers(0, 4, rng.integers(1, 5))
    lam = 0.4
    want = brute_ngtk(anygram_tree(s1), anygram_tree(s2), lam, same)
    got = ngtk_kernel(s1, s2, variant="west", lam=lam, vectors=vectors, theta=theta, method=method)
    assert got == pytest.approx(want, rel=1e-12, abs=1e-300)


@pytest.mark.parametrize("method", METHODS)
def test_gram_symmetric_psd_and_diag(method):
    rng = np.random.default_rng(9)
    X = [rng.integers(0, 5, rng.integers(0, 12)) for _ in range(25)]
    masks = [rng.integers(0, 2, s.size) for s in X]
    kw = {"variant": "sm", "lam": 0.4, "method": method}
    K = ngtk_gram(X, aspect_x=masks, **kw)
    np.testing.assert_array_equal(K, K.T)
    assert np.linalg.eigvalsh(K).min() >= -1e-10 * np.abs(K).max()
    np.testing.assert_allclose(ngtk_diag(X, aspect_x=masks, **kw), np.diag(K), rtol=1e-12)
    K_xy = ngtk_gram(X[:5], X, aspect_x=masks[:5], aspect_y=masks, **kw)
    np.testing.assert_allclose(K_xy, K[:5], rtol=1e-12)


def random_corpus(rng, n, vocab, longest):
    """Sentences over a small vocabulary (long shared runs), some longer than 64 words (multi-word masks)."""
    X = [rng.integers(0, vocab, rng.integers(0, longest + 1)) for _ in range(n)]
    masks = [(rng.random(s.size) < 0.3).astype(int) for s in X]
    return X, masks


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("variant", ["sm", "west"])
def test_fast_path_equals_the_tree_dp(seed, variant):
    rng = np.random.default_rng(500 + seed)
    vocab = int(rng.integers(2, 7))
    X, mx = random_corpus(rng, 14, vocab, 12 if seed % 2 else 140)
    Y, my = random_corpus(rng, 9, vocab, 70)
    vectors = rng.normal(size=(vocab, 3))
    vectors[0] = 0.0  # a word without a vector: matches nothing unless `identical`
    kw = {"variant": variant, "lam": float(rng.uniform(0.05, 1.0))}
    if variant == "west":
        kw |= {"vectors": vectors, "theta": float(rng.uniform(-0.5, 0.9)), "identical": bool(seed % 2)}
    for args, masks in (((X,), {"aspect_x": mx}), ((X, Y), {"aspect_x": mx, "aspect_y": my})):
        want = ngtk_gram(*args, method="dp", **masks, **kw)
        got = ngtk_gram(*args, method="auto", **masks, **kw)
        assert want.max() > 0
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)
    np.testing.assert_allclose(
        ngtk_diag(X, aspect_x=mx, method="auto", **kw), ngtk_diag(X, aspect_x=mx, method="dp", **kw), rtol=1e-12, atol=0
    )


def shared_ngram_ngtk(s1, s2, lam):
    """NGTKsm without aspects by counting: ``lam N_1 + sum_k (lam (1 + lam))**(k-1) N_k`` over shared k-grams
    (``N_k`` the pairs of equal k-grams) plus ``sum_(k <= L) (lam (1 + lam))**k`` for the L shared first words."""
    mu = lam * (1.0 + lam)
    total = 0.0
    for k in range(1, min(len(s1), len(s2)) + 1):
        grams1 = [tuple(s1[i : i + k]) for i in range(len(s1) - k + 1)]
        grams2 = [tuple(s2[j : j + k]) for j in range(len(s2) - k + 1)]
        pairs = sum(g == h for g in grams1 for h in grams2)
        total += (lam if k == 1 else mu ** (k - 1)) * pairs
        if list(s1[:k]) == list(s2[:k]):
            total += mu**k
    return total


@pytest.mark.parametrize("seed", range(8))
def test_sm_is_a_weighted_count_of_shared_ngrams(seed):
    rng = np.random.default_rng(700 + seed)
    X = [rng.integers(0, 3, rng.integers(0, 15)) for _ in range(8)]
    lam = float(rng.uniform(0.1, 1.0))
    want = np.array([[shared_ngram_ngtk(list(a), list(b), lam) for b in X] for a in X])
    np.testing.assert_allclose(ngtk_gram(X, variant="sm", lam=lam), want, rtol=1e-12, atol=0)


def test_tree_string_is_the_figure_1_tree_in_brackets():
    assert tree_string([3, 5]) == "(ROOT (w3 X) (w3 (w5 X) w5))"
    assert tree_string([3, 5], aspect_mask=[0, 1]) == "(ROOT (w3 X) (w3 (w5 AT) w5))"
    assert tree_string([7]) == "(ROOT (w7 X) w7)"
    assert tree_string([]) == "(ROOT)"
    rng = np.random.default_rng(5)
    for n in (1, 2, 9, 30):
        s, m = rng.integers(0, 4, n), rng.integers(0, 2, n)
        labels, children = anygram_tree(s, m)
        names = {ROOT: "ROOT", X_LEAF: "X", AT_LEAF: "AT"}
        want_labels = [names.get(int(x)) or f"w{x}" for x in labels]
        got_labels, got_children = parse_brackets(tree_string(s, m))
        assert got_labels == want_labels
        assert got_children == [[int(c) for c in kids if c >= 0] for kids in children]


def parse_brackets(text):
    """Labels in pre-order and child lists of a bracketed tree ``(label child ...)`` with bare leaves."""
    tokens = re.findall(r"\(|\)|[^\s()]+", text)
    labels, children, pos = [], [], 0

    def node():
        nonlocal pos
        me = len(labels)
        children.append([])
        if tokens[pos] != "(":
            labels.append(tokens[pos])
            pos += 1
            return me
        labels.append(tokens[pos + 1])
        pos += 2
        while tokens[pos] != ")":
            children[me].append(node())
        pos += 1
        return me

    node()
    assert pos == len(tokens)
    return labels, children


def test_west_with_orthogonal_vectors_is_sm():
    rng = np.random.default_rng(4)
    X = [rng.integers(0, 5, rng.integers(0, 8)) for _ in range(12)]
    np.testing.assert_allclose(
        ngtk_gram(X, variant="west", lam=0.4, vectors=np.eye(5), theta=0.5), ngtk_gram(X, variant="sm", lam=0.4), rtol=1e-14
    )


def test_ngtk_west_identical_words_match_without_a_vector():
    """With ``identical`` a word label matches the same word before the cosine: an unknown word too, and at
    theta = 1 NGTKwest is NGTKsm."""
    import numpy as np

    from kernbench.kernels.ngtk import ngtk_gram

    rng = np.random.default_rng(2)
    vectors = rng.normal(size=(8, 50))
    vectors[3] = 0.0
    X = [rng.integers(0, 8, size=rng.integers(1, 7)) for _ in range(10)]
    sm = ngtk_gram(X, variant="sm", lam=0.4)
    west = ngtk_gram(X, variant="west", lam=0.4, vectors=vectors, theta=1.0, identical=True)
    np.testing.assert_allclose(west, sm, rtol=1e-12)
    plain = ngtk_gram([[3]], [[3]], variant="west", lam=0.4, vectors=vectors, theta=0.5)
    same = ngtk_gram([[3]], [[3]], variant="west", lam=0.4, vectors=vectors, theta=0.5, identical=True)
    assert same[0, 0] > plain[0, 0]
