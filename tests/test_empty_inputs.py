"""A sentence (or document) that is empty after tokenisation, through every kernel and model: no NaN, no crash."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.pipeline import make_pipeline
from sklearn.svm import SVC

from kernbench.kernels.anygram import anygram_diag, anygram_gram, anygram_kernel, normalize_gram
from kernbench.kernels.anygram_features import anygram_features
from kernbench.kernels.anygram_sklearn import AnyGramKernel
from kernbench.kernels.fisher import fsa_features, ngram_features
from kernbench.kernels.ngtk import ngtk_diag, ngtk_gram

EMPTY = np.zeros(0, dtype=np.int64)
RNG = np.random.default_rng(11)
SENTENCES = [RNG.integers(0, 6, RNG.integers(1, 9)) for _ in range(12)]
VECTORS = RNG.normal(size=(6, 4))


@pytest.mark.parametrize("variant", ["sm", "west", "wess"])
@pytest.mark.parametrize("method", ["dp", "auto"])
def test_anygram_gram_with_an_empty_sentence(variant, method):
    X = SENTENCES[:6] + [EMPTY] + SENTENCES[6:]
    kw = {"variant": variant, "lam": 0.4, "vectors": VECTORS, "theta": 0.5}
    gram = anygram_gram(X, method=method, **kw)
    cross = anygram_gram([EMPTY, EMPTY], X, method=method, **kw)
    diag = anygram_diag(X, **kw)
    assert np.isfinite(gram).all() and np.isfinite(cross).all()
    assert (gram[6] == 0).all() and (gram[:, 6] == 0).all() and (cross == 0).all() and diag[6] == 0
    assert anygram_kernel(EMPTY, EMPTY, **kw) == 0.0
    normalised = normalize_gram(gram, diag, diag)
    assert np.isfinite(normalised).all() and normalised[6, 6] == 0.0
    assert np.allclose(np.delete(np.diag(normalised), 6), 1.0)


@pytest.mark.parametrize("variant", ["sm", "wess"])
def test_feature_maps_of_an_empty_sentence(variant):
    phi = anygram_features([EMPTY, SENTENCES[0], EMPTY], variant=variant, lam=0.4, vectors=VECTORS)
    assert phi[0].nnz == 0 and phi[2].nnz == 0 and np.isfinite(phi.data).all()
    assert anygram_features([EMPTY], variant=variant, lam=0.4, vectors=VECTORS).nnz == 0


@pytest.mark.parametrize("variant", ["sm", "west"])
def test_ngtk_with_an_empty_sentence(variant):
    X = SENTENCES[:4] + [EMPTY]
    masks = [np.zeros(len(s), dtype=np.int8) for s in X]
    kw = {"variant": variant, "lam": 0.4, "vectors": VECTORS, "theta": 0.5}
    gram = ngtk_gram(X, aspect_x=masks, **kw)
    diag = ngtk_diag(X, aspect_x=masks, **kw)
    assert np.isfinite(gram).all() and np.isfinite(diag).all()
    assert np.isfinite(normalize_gram(gram, diag, diag)).all()


def test_svc_pipeline_trains_and_predicts_with_empty_sentences():
    X = SENTENCES + [EMPTY, EMPTY]
    y = np.array([0, 1] * 7)
    model = make_pipeline(AnyGramKernel(variant="wess", lam=0.4, vectors=VECTORS, normalize=True),
                          SVC(kernel="precomputed"))
    model.fit(X, y)
    assert set(model.predict([EMPTY, SENTENCES[3]])) <= {0, 1}


@pytest.mark.parametrize("kind", ["ngram", "fsa"])
@pytest.mark.parametrize("weighting", ["uniform", "ln"])
def test_fisher_features_of_an_empty_document(kind, weighting):
    rng = np.random.default_rng(4)
    train = [rng.integers(1, 4, 60).astype(np.uint8) for _ in range(8)] + [np.zeros(0, dtype=np.uint8)]
    test = [np.zeros(0, dtype=np.uint8), rng.integers(1, 4, 30).astype(np.uint8)]
    if kind == "ngram":
        feats = ngram_features(train, test, k=3, min_count=2, weighting=weighting, c=1.0, alphabet_size=3)
    else:
        feats = fsa_features(train, test, t=3, weighting=weighting, c=1.0, alphabet_size=3)
    for m in (feats.train, feats.test):
        m = sp.csr_matrix(m)
        assert np.isfinite(m.data).all()
    assert sp.csr_matrix(feats.test)[0].nnz == 0 and sp.csr_matrix(feats.train)[8].nnz == 0


@pytest.mark.parametrize("bidirectional", [False, True])
def test_lstm_predicts_finite_probabilities_for_an_empty_sentence(bidirectional):
    from kernbench.papers.anygram import lstm

    lstm.configure_tensorflow(1)
    embeddings = lstm.embedding_matrix(VECTORS.astype(np.float32))
    model = lstm.build_model(embeddings, n_classes=3, bidirectional=bidirectional, layers=1, hidden_size=4,
                             dropout=0.5, learning_rate=0.01, aspect=True)
    ids = [np.zeros(0, dtype=np.int32), np.array([1, 2, 3], dtype=np.int32)]
    aspect = [np.zeros(0, dtype=np.float32), np.array([0, 1, 0], dtype=np.float32)]
    proba = lstm.predict_proba(model, ids, aspect)
    assert proba.shape == (2, 3) and np.isfinite(proba).all()
    assert np.allclose(proba.sum(axis=1), 1.0, atol=1e-5)
