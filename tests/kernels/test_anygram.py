"""Any-gram kernels: DP against brute force, fast paths against DP, Gram properties, aspects, wrapper."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.svm import SVC

from kernbench.kernels.anygram import anygram_diag, anygram_gram, anygram_kernel, normalize_gram
from kernbench.kernels.anygram_encoding import TokenEncoder
from kernbench.kernels.anygram_sklearn import AnyGramKernel


def brute_sm(s1, s2, lam):
    """sum_n lam^n sum_u c1(u) c2(u) over all contiguous n-grams, counted independently of the DP."""
    total = 0.0
    for n in range(1, min(len(s1), len(s2)) + 1):
        c1 = Counter(tuple(s1[i : i + n]) for i in range(len(s1) - n + 1))
        c2 = Counter(tuple(s2[i : i + n]) for i in range(len(s2) - n + 1))
        total += lam**n * sum(c * c2[u] for u, c in c1.items())
    return total


def brute_wess(e1, e2, lam):
    """The design-note identity: sum_m lam^(m+1) <sum_{p>=m} e_p, sum_{q>=m} f_q> over unit vectors."""
    def unit(m):
        m = np.asarray(m, dtype=float)
        n = np.linalg.norm(m, axis=1, keepdims=True)
        return np.divide(m, n, out=np.zeros_like(m), where=n > 0)

    u1, u2 = unit(e1), unit(e2)
    return sum(lam ** (m + 1) * u1[m:].sum(0) @ u2[m:].sum(0) for m in range(min(len(u1), len(u2))))


def close(fast, slow, scale):
    """|fast - slow| within 1e-9 of the entry, or of sqrt(K(x,x) K(y,y)) where wess cancels to ~0."""
    return np.all(np.abs(fast - slow) <= 1e-9 * np.maximum(np.abs(slow), scale) + 1e-300)


# ------------------------------------------------------------------ hand-worked and brute force


def test_sm_hand_worked():
    # "a b" vs "a b": unigrams a, b and bigram ab in common: 2 lam + lam^2.
    assert anygram_kernel([0, 1], [0, 1], variant="sm", lam=0.5) == pytest.approx(1.25, abs=1e-15)
    # "a a" vs "a": unigram a twice: 2 lam.
    assert anygram_kernel([0, 0], [0], variant="sm", lam=0.5) == pytest.approx(1.0, abs=1e-15)
    # "a b a" vs "b a b": a: 2*1, b: 1*2, ab: 1*1, ba: 1*1 -> 4 lam + 2 lam^2.
    assert anygram_kernel([0, 1, 0], [1, 0, 1], variant="sm", lam=0.3) == pytest.approx(4 * 0.3 + 2 * 0.09, abs=1e-15)


sentences = st.lists(st.integers(0, 4), min_size=0, max_size=12).map(lambda s: np.array(s, dtype=np.int64))


@settings(max_examples=150, deadline=None)
@given(sentences, sentences, st.floats(0.05, 1.0))
def test_sm_dp_equals_brute_force_count(s1, s2, lam):
    assert anygram_kernel(s1, s2, variant="sm", lam=lam) == pytest.approx(brute_sm(list(s1), list(s2), lam), rel=1e-12, abs=1e-300)


@settings(max_examples=100, deadline=None)
@given(sentences, sentences, st.floats(0.05, 1.0), st.integers(0, 10_000))
def test_wess_dp_equals_suffix_sum_identity(s1, s2, lam, seed):
    vectors = np.random.default_rng(seed).normal(size=(5, 3))
    vectors[4] = 0.0  # a word without an embedding
    got = anygram_kernel(s1, s2, variant="wess", lam=lam, vectors=vectors)
    want = brute_wess(vectors[s1].reshape(-1, 3), vectors[s2].reshape(-1, 3), lam)
    assert got == pytest.approx(want, rel=1e-9, abs=1e-12)


def test_west_with_orthogonal_vectors_is_string_match():
    rng = np.random.default_rng(1)
    onehot = np.eye(6)
    for _ in range(30):
        s1, s2 = rng.integers(0, 6, rng.integers(0, 9)), rng.integers(0, 6, rng.integers(0, 9))
        west = anygram_kernel(s1, s2, variant="west", lam=0.4, vectors=onehot, theta=0.5)
        assert west == anygram_kernel(s1, s2, variant="sm", lam=0.4)


def test_zero_vector_matches_nothing_not_even_itself():
    vectors = np.array([[1.0, 0.0], [0.0, 0.0]])
    assert anygram_kernel([1, 1], [1], variant="west", lam=0.4, vectors=vectors, theta=-0.5) == pytest.approx(0.8)
    assert anygram_kernel([1, 1], [1], variant="west", lam=0.4, vectors=vectors, theta=0.5) == 0.0
    assert anygram_kernel([1, 1], [1, 1], variant="wess", lam=0.4, vectors=vectors) == 0.0
    assert anygram_kernel([0], [0], variant="wess", lam=0.4, vectors=vectors) == pytest.approx(0.4)


# ------------------------------------------------------------------ fast paths against the DP


def _edge_cases(rng, vocab):
    return [
        np.zeros(0, dtype=np.int64),  # empty sentence
        np.array([1 % vocab]),  # one token
        np.full(7, 2 % vocab),  # all tokens equal
        rng.integers(0, vocab, 130),  # over 100 tokens
        np.full(150, 0),  # one matching run across several 64-position words
        np.full(5, vocab - 1),  # out-of-vocabulary (zero vector)
        np.array([vocab - 1, 0, vocab - 1]),
    ]


corpora = st.tuples(
    st.integers(0, 2**32 - 1),  # seed
    st.integers(2, 8),  # vocabulary size
    st.integers(0, 12),  # sentences
    st.integers(1, 25),  # max length
    st.floats(0.05, 1.0),  # lambda
    st.sampled_from([-0.2, 0.0, 0.3, 0.6, 0.9]),  # theta
)


def _corpus(seed, vocab, n, max_len, with_edges):
    rng = np.random.default_rng(seed)
    X = [rng.integers(0, vocab, rng.integers(0, max_len + 1)) for _ in range(n)]
    if with_edges:
        X += _edge_cases(rng, vocab)
    vectors = rng.normal(size=(vocab, 4))
    vectors[vocab - 1] = 0.0
    # Duplicate and rescaled vectors: cosine exactly 1 between different ids.
    if vocab > 3:
        vectors[1] = 3.0 * vectors[0]
    return X, vectors


@pytest.mark.parametrize("variant", ["sm", "west", "wess"])
@settings(max_examples=40, deadline=None)
@given(case=corpora, with_edges=st.booleans())
def test_fast_path_matches_dp(variant, case, with_edges):
    seed, vocab, n, max_len, lam, theta = case
    X, vectors = _corpus(seed, vocab, n, max_len, with_edges)
    Y = X[: max(1, len(X) // 2)] + X[:1]
    kw = {"variant": variant, "lam": lam, "vectors": vectors, "theta": theta}
    dx, dy = np.abs(anygram_diag(X, **kw)), np.abs(anygram_diag(Y, **kw))
    dp_sym = anygram_gram(X, method="dp", **kw)
    assert close(anygram_gram(X, method="auto", **kw), dp_sym, np.sqrt(np.outer(dx, dx)))
    dp_xy = anygram_gram(X, Y, method="dp", **kw)
    assert close(anygram_gram(X, Y, method="auto", **kw), dp_xy, np.sqrt(np.outer(dx, dy)))
    k = len(Y) - 1  # Y starts with X[:k]
    assert close(dp_xy[:, :k], dp_sym[:, :k], np.sqrt(np.outer(dx, dy[:k])))
    for a in range(min(len(X), 4)):
        for b in range(min(len(X), 4)):
            assert dp_sym[a, b] == pytest.approx(anygram_kernel(X[a], X[b], **kw), rel=1e-12, abs=1e-12)


def test_theta_on_a_tie_decides_like_the_dp():
    # Cosine exactly at theta, from a GEMM and from the DP loop.
    rng = np.random.default_rng(3)
    vectors = rng.normal(size=(6, 5))
    X = [rng.integers(0, 6, 9) for _ in range(8)]
    units = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    theta = float(units[0] @ units[1])
    for t in (theta, np.nextafter(theta, 1), np.nextafter(theta, -1)):
        kw = {"variant": "west", "lam": 0.4, "vectors": vectors, "theta": t}
        np.testing.assert_allclose(anygram_gram(X, **kw), anygram_gram(X, method="dp", **kw), rtol=1e-12)


# ------------------------------------------------------------------ Gram properties


@pytest.mark.parametrize("variant", ["sm", "west", "wess"])
def test_gram_symmetric_and_psd(variant):
    rng = np.random.default_rng(7)
    X = [rng.integers(0, 6, rng.integers(0, 20)) for _ in range(40)]
    vectors = rng.normal(size=(6, 4))
    for method in ("dp", "auto"):
        K = anygram_gram(X, variant=variant, lam=0.4, vectors=vectors, theta=0.5, method=method)
        np.testing.assert_array_equal(K, K.T)
        if variant != "west":  # the threshold kernel need not be PSD
            assert np.linalg.eigvalsh(K).min() >= -1e-10 * np.abs(K).max()


def test_normalisation_gives_unit_diagonal():
    rng = np.random.default_rng(2)
    X = [rng.integers(0, 5, rng.integers(1, 10)) for _ in range(10)] + [np.zeros(0, dtype=np.int64)]
    K = anygram_gram(X, variant="sm", lam=0.4)
    d = anygram_diag(X, variant="sm", lam=0.4)
    np.testing.assert_allclose(d, np.diag(K), rtol=1e-12)
    N = normalize_gram(K, d, d)
    np.testing.assert_allclose(np.diag(N)[:-1], 1.0, rtol=1e-12)
    assert np.all(N[-1] == 0.0)


def test_bad_arguments():
    with pytest.raises(ValueError, match="theta"):
        anygram_gram([np.array([1])], variant="west", lam=0.4, vectors=np.eye(2))
    with pytest.raises(ValueError, match="variant"):
        anygram_gram([np.array([1])], variant="nope", lam=0.4)
    with pytest.raises(ValueError, match="lam"):
        anygram_kernel([1], [1], variant="sm", lam=1.5)
    with pytest.raises(ValueError, match="index vectors"):
        anygram_kernel([5], [1], variant="wess", lam=0.4, vectors=np.eye(2))


@pytest.mark.parametrize("theta", [2.0, -1.5, float("nan"), float("inf")])
@pytest.mark.parametrize("call", ["kernel", "gram", "gram_dp", "diag"])
def test_theta_outside_the_cosine_range_is_rejected(theta, call):
    vectors = np.array([[1.0, 0.0], [0.6, 0.8]])
    s = np.array([0, 1])
    with pytest.raises(ValueError, match=r"theta must be a cosine similarity in \[-1, 1\]"):
        if call == "kernel":
            anygram_kernel(s, s, variant="west", lam=0.4, vectors=vectors, theta=theta)
        elif call == "diag":
            anygram_diag([s], variant="west", lam=0.4, vectors=vectors, theta=theta)
        else:
            anygram_gram([s], variant="west", lam=0.4, vectors=vectors, theta=theta, method=call[5:] or "auto")
    # The ends of the range are legitimate: theta = 1 matches identical directions only, -1 every pair of tokens.
    assert anygram_kernel(s, s, variant="west", lam=1.0, vectors=vectors, theta=1.0) == 3.0  # [0], [1], [0 1]
    assert anygram_kernel(s, s, variant="west", lam=1.0, vectors=vectors, theta=-1.0) == 5.0  # 4 unigrams + 1 bigram


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
@pytest.mark.parametrize("variant", ["west", "wess"])
def test_non_finite_token_vectors_are_rejected(bad, variant):
    vectors = np.array([[1.0, 0.0], [0.6, 0.8], [0.0, 1.0]])
    vectors[2, 1] = bad
    s = np.array([0, 2])
    with pytest.raises(ValueError, match="vectors row 2"):
        anygram_gram([s, np.array([1])], variant=variant, lam=0.4, vectors=vectors, theta=0.5)
    with pytest.raises(ValueError, match="vectors row 2"):
        anygram_diag([s], variant=variant, lam=0.4, vectors=vectors, theta=0.5)
    with pytest.raises(ValueError, match="sentence 1, token 2 holds"):  # sentences given as their vectors
        anygram_kernel(vectors[:2], vectors, variant=variant, lam=0.4, theta=0.5)
    # Only the vectors actually given are checked: the sm variant has none.
    assert anygram_kernel(s, s, variant="sm", lam=1.0, vectors=vectors) == 3.0


# ------------------------------------------------------------------ aspects


@pytest.fixture
def encoder():
    words = ["food", "good", "service", "the"]
    vectors = np.array([[1.0, 0.2, 0.0], [0.1, 1.0, 0.3], [0.9, 0.1, 0.4], [0.0, 0.0, 0.0]])
    return TokenEncoder(words, vectors, cased=False)


def test_aspects_under_string_match_rename_only_aspect_tokens(encoder, lam=0.4):
    s1 = ["The", "food", "good", "food"]
    s2 = ["food", "good", "food", "service"]
    m1, m2 = [0, 1, 0, 0], [1, 0, 0, 0]
    got = anygram_kernel(*encoder.encode([s1, s2], variant="sm", aspect_masks=[m1, m2]), variant="sm", lam=lam)
    marked1 = [t.lower() + ("_AT" if m else "") for t, m in zip(s1, m1)]
    marked2 = [t.lower() + ("_AT" if m else "") for t, m in zip(s2, m2)]
    assert got == pytest.approx(brute_sm(marked1, marked2, lam), rel=1e-12)
    plain = anygram_kernel(*encoder.encode([s1, s2], variant="sm"), variant="sm", lam=lam)
    assert plain == pytest.approx(brute_sm([t.lower() for t in s1], [t.lower() for t in s2], lam), rel=1e-12)
    assert got != plain
    # An unknown word gets an id of its own, stable across calls.
    new = encoder.ids(["zzz"])[0]
    assert new >= 4 and encoder.ids(["ZZZ"])[0] == new and encoder.vectors_of([new]).tolist() == [[0.0, 0.0, 0.0]]


@pytest.mark.parametrize("variant", ["west", "wess"])
def test_aspects_under_embeddings_add_one_dimension(encoder, variant):
    sents = [["good", "food"], ["the", "service", "food"]]
    masks = [[0, 1], [0, 0, 1]]
    enc = encoder.encode(sents, variant=variant, aspect_masks=masks)
    assert [e.shape for e in enc] == [(2, 4), (3, 4)]
    np.testing.assert_array_equal(enc[0][:, 3], [0, 1])
    np.testing.assert_array_equal(enc[1][:, :3], encoder.vectors[[3, 2, 0]])
    kw = {"variant": variant, "lam": 0.4, "theta": 0.9}
    # With the flag column all 0 the kernel is that of the plain vectors.
    no_aspect = encoder.encode(sents, variant=variant, aspect_masks=[[0, 0], [0, 0, 0]])
    ids = encoder.encode(sents, variant="sm")
    np.testing.assert_allclose(
        anygram_gram(no_aspect, **kw), anygram_gram(ids, vectors=encoder.vectors, **kw), rtol=1e-12
    )
    # The flag makes the two "food" aspect tokens closer: cos = (1.04 + 1) / (1.04 + 1) = 1 vs the plain 1.
    assert anygram_gram(enc, **kw)[0, 1] != anygram_gram(ids, vectors=encoder.vectors, **kw)[0, 1] or variant == "west"


# ------------------------------------------------------------------ scikit-learn wrapper


def test_wrapper_in_pipeline_matches_direct_svc():
    rng = np.random.default_rng(5)
    X = [rng.integers(0, 6, rng.integers(1, 12)) for _ in range(60)]
    y = np.array([int((s == 0).sum() > (s == 1).sum()) for s in X])
    vectors = rng.normal(size=(6, 4))
    model = make_pipeline(AnyGramKernel(variant="wess", lam=0.4, vectors=vectors, normalize=True), SVC(kernel="precomputed"))
    model.fit(X[:40], y[:40])
    K_train = anygram_gram(X[:40], variant="wess", lam=0.4, vectors=vectors)
    d_train = anygram_diag(X[:40], variant="wess", lam=0.4, vectors=vectors)
    K_test = anygram_gram(X[40:], X[:40], variant="wess", lam=0.4, vectors=vectors)
    d_test = anygram_diag(X[40:], variant="wess", lam=0.4, vectors=vectors)
    svc = SVC(kernel="precomputed").fit(normalize_gram(K_train, d_train, d_train), y[:40])
    np.testing.assert_array_equal(model.predict(X[40:]), svc.predict(normalize_gram(K_test, d_test, d_train)))
    search = GridSearchCV(model, {"anygramkernel__variant": ["sm", "wess"], "svc__C": [0.1, 1.0]}, cv=2)
    search.fit(X, y)
    assert search.best_params_["anygramkernel__variant"] in ("sm", "wess")


# ------------------------------------------------------------------ identical tokens (anygram.identical_match)


def brute_identity(s1, s2, vectors, lam, variant, theta=None):
    """Algorithms 2 / 3 with an identity test first: equal ids match (sim 1), else the cosine of their vectors."""
    def unit(v):
        n = np.linalg.norm(v)
        return v / n if n > 0 else v

    nxt, total = np.zeros(len(s2) + 1), 0.0
    for i in range(len(s1) - 1, -1, -1):
        cur = np.zeros(len(s2) + 1)
        for j in range(len(s2)):
            sim = 1.0 if s1[i] == s2[j] else float(unit(vectors[s1[i]]) @ unit(vectors[s2[j]]))
            if variant == "wess":
                cur[j] = lam * (sim + nxt[j + 1])
            elif s1[i] == s2[j] or sim >= theta:
                cur[j] = lam * (1.0 + nxt[j + 1])
            total += cur[j]
        nxt = cur
    return total


@pytest.mark.parametrize("variant,theta", [("west", 0.3), ("west", 1.0), ("wess", None)])
@pytest.mark.parametrize("method", ["auto", "dp"])
def test_identical_tokens_match_in_every_route(variant, theta, method):
    """Gram (fast path and DP), diagonal and single pairs all follow the identity-first algorithm."""
    rng = np.random.default_rng(3)
    vectors = rng.normal(size=(12, 5))
    vectors[[3, 7]] = 0.0  # two words without a vector
    X = [rng.integers(0, 12, size=rng.integers(1, 9)) for _ in range(9)]
    Y = [rng.integers(0, 12, size=rng.integers(1, 9)) for _ in range(7)]
    kw = {"variant": variant, "lam": 0.4, "vectors": vectors, "theta": theta}
    want = np.array([[brute_identity(a, b, vectors, 0.4, variant, theta) for b in Y] for a in X])
    want_xx = np.array([[brute_identity(a, b, vectors, 0.4, variant, theta) for b in X] for a in X])
    np.testing.assert_allclose(anygram_gram(X, Y, method=method, identity=X, identity_y=Y, **kw), want, atol=1e-12)
    np.testing.assert_allclose(anygram_gram(X, method=method, identity=X, **kw), want_xx, atol=1e-12)
    np.testing.assert_allclose(anygram_diag(X, identity=X, **kw), np.diag(want_xx), atol=1e-12)
    assert anygram_kernel(X[0], Y[0], identity=(X[0], Y[0]), **kw) == pytest.approx(want[0, 0], abs=1e-12)
    # Without identity ids the unknown words match nothing (and at theta 1 rounding loses identical words).
    assert not np.allclose(anygram_gram(X, Y, method=method, **kw), want)


def test_theta_one_with_identical_tokens_is_string_match():
    """Identity first: theta = 1 is exact match (Algorithm 1), where the cosine of a unit vector with itself
    may round below 1 and an unknown word matches nothing."""
    rng = np.random.default_rng(5)
    vectors = rng.normal(size=(30, 50))
    vectors[[2, 9]] = 0.0
    X = [rng.integers(0, 30, size=rng.integers(1, 12)) for _ in range(25)]
    sm = anygram_gram(X, variant="sm", lam=0.4)
    west = anygram_gram(X, variant="west", lam=0.4, vectors=vectors, theta=1.0, identity=X)
    np.testing.assert_allclose(west, sm, rtol=1e-12)
    assert not np.allclose(anygram_gram(X, variant="west", lam=0.4, vectors=vectors, theta=1.0), sm)


def test_unknown_word_matches_itself_only_with_identity():
    vectors = np.array([[1.0, 0.0], [0.0, 0.0], [0.0, 0.0]])  # words 1 and 2 have no vector
    kw = {"lam": 0.4, "vectors": vectors}
    assert anygram_kernel([1], [1], variant="wess", **kw) == 0.0
    assert anygram_kernel([1], [1], variant="wess", identity=([1], [1]), **kw) == pytest.approx(0.4)
    assert anygram_kernel([1], [2], variant="wess", identity=([1], [2]), **kw) == 0.0
    assert anygram_kernel([1, 1], [1], variant="west", theta=0.5, identity=([1, 1], [1]), **kw) == pytest.approx(0.8)
    assert anygram_kernel([1, 2], [2, 1], variant="west", theta=0.5, identity=([1, 2], [2, 1]), **kw) == pytest.approx(0.8)


def test_identity_ids_must_fit_the_sentences():
    vectors = np.eye(3)
    with pytest.raises(ValueError, match="identity: sentence 0 needs a 1-D integer array of 2 ids"):
        anygram_gram([[0, 1]], variant="wess", lam=0.4, vectors=vectors, identity=[[0]])
    with pytest.raises(ValueError, match="identity_y"):
        anygram_gram([[0, 1]], [[1]], variant="wess", lam=0.4, vectors=vectors, identity=[[0, 1]])


def test_wess_feature_map_carries_the_identity_matches():
    from kernbench.kernels.anygram_features import anygram_features

    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(10, 4))
    vectors[[1, 4]] = 0.0
    X = [rng.integers(0, 10, size=rng.integers(1, 8)) for _ in range(12)]
    phi = anygram_features(X, variant="wess", lam=0.4, vectors=vectors, identity=X)
    gram = anygram_gram(X, variant="wess", lam=0.4, vectors=vectors, identity=X)
    np.testing.assert_allclose((phi @ phi.T).toarray(), gram, atol=1e-12)
