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
    dev_scores : dict
        Dev accuracy of every ``(key, C)`` tried, keyed by ``"key|C"``.
    """

    key: object
    C: float
    model: SVC
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


def select_on_dev(kernels: dict, y_train, y_dev, C_grid) -> Selection:
    """Choose the kernel setting and C with the best dev accuracy (first in order on ties).

    Parameters
    ----------
    kernels : dict
        ``{key: KernelSet}``, tried in insertion order.
    y_train, y_dev : array-like
        Labels of the training and dev items.
    C_grid : sequence of float

    Returns
    -------
    Selection
    """
    if not kernels:
        raise ValueError("no kernel setting to select from")
    best, scores = None, {}
    for key, ks in kernels.items():
        for c in C_grid:
            model = fit_svc(ks.train, y_train, float(c))
            acc = float(accuracy_score(y_dev, model.predict(ks.dev))) if len(y_dev) else 0.0
            scores[f"{key}|{float(c)}"] = acc
            if best is None or acc > best[0]:
                best = (acc, key, float(c), model)
    return Selection(key=best[1], C=best[2], model=best[3], dev_scores=scores)
