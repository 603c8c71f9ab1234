"""NGTK: the Figure 1 tree and the subset-tree kernel against a brute-force fragment count."""

from __future__ import annotations

from itertools import product

import numpy as np
import pytest

from kernbench.kernels.ngtk import AT_LEAF, ROOT, X_LEAF, anygram_tree, ngtk_diag, ngtk_gram, ngtk_kernel


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


def test_hand_worked_pair():
    # root(1 fragment-pair family) 6, P_1 1, C_1 2, P_2 1 with lam = 1 (see module docstring).
    assert ngtk_kernel([1, 2], [1, 2], variant="sm", lam=1.0) == pytest.approx(10.0)


@pytest.mark.parametrize("seed", range(12))
def test_sm_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    s1, s2 = rng.integers(0, 3, rng.integers(0, 5)), rng.integers(0, 3, rng.integers(0, 5))
    m1, m2 = rng.integers(0, 2, s1.size), rng.integers(0, 2, s2.size)
    lam = float(rng.uniform(0.1, 1.0))
    want = brute_ngtk(anygram_tree(s1, m1), anygram_tree(s2, m2), lam, lambda a, b: a == b)
    assert ngtk_kernel(s1, s2, variant="sm", lam=lam, aspect1=m1, aspect2=m2) == pytest.approx(want, rel=1e-12, abs=1e-300)


@pytest.mark.parametrize("seed", range(12))
def test_west_matches_brute_force(seed):
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
    assert ngtk_kernel(s1, s2, variant="west", lam=lam, vectors=vectors, theta=theta) == pytest.approx(want, rel=1e-12, abs=1e-300)


def test_gram_symmetric_psd_and_diag():
    rng = np.random.default_rng(9)
    X = [rng.integers(0, 5, rng.integers(0, 12)) for _ in range(25)]
    masks = [rng.integers(0, 2, s.size) for s in X]
    K = ngtk_gram(X, variant="sm", lam=0.4, aspect_x=masks)
    np.testing.assert_array_equal(K, K.T)
    assert np.linalg.eigvalsh(K).min() >= -1e-10 * np.abs(K).max()
    np.testing.assert_allclose(ngtk_diag(X, variant="sm", lam=0.4, aspect_x=masks), np.diag(K), rtol=1e-12)
    K_xy = ngtk_gram(X[:5], X, variant="sm", lam=0.4, aspect_x=masks[:5], aspect_y=masks)
    np.testing.assert_allclose(K_xy, K[:5], rtol=1e-12)


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
