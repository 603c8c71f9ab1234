"""scikit-learn wrapper of the any-gram kernels (also importable from :mod:`kernbench.kernels.anygram`)."""

from __future__ import annotations

from collections.abc import Iterable

from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from kernbench.kernels.anygram import anygram_diag, anygram_gram, normalize_gram


def _sentences(X, method: str) -> list:
    """The sentences of an iterable as a list; a string or a scalar is not an iterable of sentences."""
    if isinstance(X, (str, bytes)) or not isinstance(X, Iterable):
        raise TypeError(f"AnyGramKernel.{method}: X must be an iterable of sentences, got {type(X).__name__}")
    return list(X)


class AnyGramKernel(TransformerMixin, BaseEstimator):
    """Any-gram kernel as a scikit-learn transformer: sentences in, Gram matrix against the fitted ones out.

    Put it before ``SVC(kernel="precomputed")`` in a ``Pipeline``: ``fit`` stores
    the training sentences and returns ``K(train, train)`` through
    ``fit_transform``; ``transform`` returns ``K(X, train)``.

    Its input is an iterable of sentences of different lengths (token-id
    sequences, or ``L x d`` token-vector arrays), not a 2-D array of samples by
    features: its estimator tags say so (``input_tags.two_d_array`` is false, as
    for scikit-learn's text vectorisers), and the checks of
    ``sklearn.utils.estimator_checks`` that feed 2-D arrays do not apply to it.

    Parameters
    ----------
    variant : {"sm", "west", "wess"}, default="wess"
        Kernel variant (Algorithm 1, 2 or 3).
    lam : float, default=0.4
        Decay factor in (0, 1].
    theta : float, optional
        Cosine similarity threshold (``west`` only).
    vectors : array-like of shape (V, d), optional
        Token vectors indexed by id (``west``/``wess`` with id input).
    normalize : bool, default=False
        Return ``K(x, y) / sqrt(K(x, x) K(y, y))``.
    method : {"auto", "dp"}, default="auto"
        Fast path or plain dynamic programme (same values).

    Attributes
    ----------
    X_fit_ : list
        The training sentences.
    diag_fit_ : ndarray
        ``K(x, x)`` of the training sentences.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.svm import SVC
    >>> X = [np.array([0, 1, 2]), np.array([0, 1]), np.array([3, 4]), np.array([4, 3, 4])]
    >>> model = make_pipeline(AnyGramKernel(variant="sm", lam=0.4), SVC(kernel="precomputed"))
    >>> model.fit(X, [1, 1, 0, 0]).predict([np.array([0, 1, 1])]).tolist()
    [1]
    """

    def __init__(self, variant="wess", lam=0.4, theta=None, vectors=None, normalize=False, method="auto"):
        self.variant = variant
        self.lam = lam
        self.theta = theta
        self.vectors = vectors
        self.normalize = normalize
        self.method = method

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False  # an iterable of variable-length sentences
        tags.input_tags.sparse = False
        return tags

    def _kw(self):
        return {"variant": self.variant, "lam": self.lam, "vectors": self.vectors, "theta": self.theta}

    def fit(self, X, y=None):
        """Store the training sentences (and their self-similarities).

        Parameters
        ----------
        X : iterable of array-like
            Training sentences (at least one).
        y : ignored

        Returns
        -------
        self
        """
        self.X_fit_ = _sentences(X, "fit")
        if not self.X_fit_:
            raise ValueError("AnyGramKernel.fit: X holds no sentence; the kernel needs at least one training sentence")
        self.diag_fit_ = anygram_diag(self.X_fit_, **self._kw())
        return self

    def transform(self, X):
        """Gram matrix between ``X`` and the training sentences.

        Parameters
        ----------
        X : iterable of array-like

        Returns
        -------
        ndarray of shape (len(X), n_train)
        """
        check_is_fitted(self, "X_fit_")
        X = _sentences(X, "transform")
        gram = anygram_gram(X, self.X_fit_, method=self.method, **self._kw())
        if self.normalize:
            gram = normalize_gram(gram, anygram_diag(X, **self._kw()), self.diag_fit_)
        return gram

    def fit_transform(self, X, y=None, **fit_params):
        """Fit on ``X`` and return its symmetric Gram matrix (each pair computed once).

        Parameters
        ----------
        X : iterable of array-like
        y : ignored

        Returns
        -------
        ndarray of shape (len(X), len(X))
        """
        self.fit(X)
        gram = anygram_gram(self.X_fit_, method=self.method, **self._kw())
        if self.normalize:
            gram = normalize_gram(gram, self.diag_fit_, self.diag_fit_)
        return gram
