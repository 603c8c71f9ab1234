"""Support vector classification on precomputed kernels, with hyper-parameters chosen on dev."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.metrics import accuracy_score
from sklearn.svm import SVC


@dataclass
class KernelSet:
    """The Gram matrices of one kernel setting.

    Attributes
    ----------
    train : ndarray of shape (n_train, n_train)
        ``K(train, train)``.
    dev, test : ndarray of shape (n_split, n_train)
        ``K(split, train)``.
    """

    train: np.ndarray
    dev: np.ndarray
    test: np.ndarray


@dataclass
class Selection:
    """The chosen setting and its fitted model.

    Attributes
    ----------
    key : object
        Key of the chosen kernel setting (for example ``(theta, normalise)``).
    C : float
        Chosen SVM C.
    model : sklearn.svm.SVC
        SVC fitted on the training Gram matrix of that setting.
    kernels : KernelSet
        The Gram matrices of that setting (to predict with ``model``).
    dev_scores : dict
        Dev accuracy of every ``(key, C)`` tried, keyed by ``"key|C"``.
    """

    key: object
    C: float
    model: SVC
    kernels: KernelSet
    dev_scores: dict


def fit_svc(gram_train: np.ndarray, y_train, C: float) -> SVC:
    """Fit a one-vs-one ``SVC(kernel="precomputed")`` on a training Gram matrix.

    Parameters
    ----------
    gram_train : ndarray of shape (n, n)
    y_train : array-like of shape (n,)
    C : float

    Returns
    -------
    sklearn.svm.SVC
    """
    return SVC(kernel="precomputed", C=C, decision_function_shape="ovo").fit(gram_train, y_train)


def select_on_dev(kernels, y_train, y_dev, C_grid, *, n_jobs: int = 1) -> Selection:
    """Choose the kernel setting and C with the best dev accuracy (first in order on ties).

    Every C of a setting trains on the same training matrix (libsvm reads it
    in place, so no C copies it); with ``n_jobs`` > 1 the C values are fitted
    in that many threads at once (libsvm trains without the GIL). The models
    are scored in grid order, so the choice is that of a serial run.

    Parameters
    ----------
    kernels : dict or iterable
        ``{key: KernelSet}``, or ``(key, KernelSet)`` pairs, tried in order. An
        iterable may build each setting only when it is reached, so that only
        the current and the best settings' matrices are held at once.
    y_train, y_dev : array-like
        Labels of the training and dev items.
    C_grid : sequence of float
    n_jobs : int, optional
        Threads fitting the C values of a setting.

    Returns
    -------
    Selection
    """
    from joblib import Parallel, delayed

    def fit_and_score(ks, c):
        model = fit_svc(ks.train, y_train, c)
        return model, float(accuracy_score(y_dev, model.predict(ks.dev))) if len(y_dev) else 0.0

    pairs = kernels.items() if isinstance(kernels, dict) else kernels
    grid = [float(c) for c in C_grid]
    best, scores = None, {}
    with Parallel(n_jobs=max(1, min(n_jobs, len(grid))), prefer="threads") as parallel:
        for key, ks in pairs:
            fitted = parallel(delayed(fit_and_score)(ks, c) for c in grid)
            for c, (model, acc) in zip(grid, fitted):
                scores[f"{key}|{c}"] = acc
                if best is None or acc > best[0]:
                    best = (acc, key, c, model, ks)
    if best is None:
        raise ValueError("no kernel setting to select from")
    return Selection(key=best[1], C=best[2], model=best[3], kernels=best[4], dev_scores=scores)
