"""Support vector classification on precomputed kernels, with hyper-parameters chosen on dev."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.metrics import accuracy_score
from sklearn.svm import SVC

from kernbench import runs


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


def select_svc_on_dev(kernels, y_train, y_dev, C_grid, *, n_jobs: int = 1) -> Selection:
    """Choose the kernel setting and C with the best dev accuracy (first in order on ties; :func:`kernbench.runs.select_on_dev`).

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

    def scored(parallel):
        for key, ks in pairs:
            fitted = parallel(delayed(fit_and_score)(ks, c) for c in grid)
            for c, (model, acc) in zip(grid, fitted):
                yield f"{key}|{c}", acc, (key, c, model, ks)

    with Parallel(n_jobs=max(1, min(n_jobs, len(grid))), prefer="threads") as parallel:
        _, (key, c, model, ks), scores = runs.select_on_dev(scored(parallel))
    return Selection(key=key, C=c, model=model, kernels=ks, dev_scores=scores)


def fit_primal_svm(
    features, y_train, C: float, *, tol: float = 1e-4, max_iter: int = 1000, seed: int = 0, n_jobs: int = 1
):
    """Fit the SVM of :func:`fit_svc` in the primal, on explicit feature maps instead of a Gram matrix.

    The machine of ``SVC(kernel="precomputed")`` on ``K = phi phi^T`` (hinge
    loss, one-vs-one over the classes), solved by liblinear's dual coordinate
    descent, whose cost grows with the number of non-zeros instead of ``n**2``.
    The one difference: liblinear regularises the intercept as the weight of a
    constant feature 1. On L2-normalised maps that leaves the predictions those
    of the kernel SVM up to solver tolerance (tested on a real slice); a larger
    ``intercept_scaling`` would shrink the penalty but slows the solver by an
    order of magnitude.

    Parameters
    ----------
    features : array-like or sparse matrix of shape (n, p)
        Explicit feature map of the training items.
    y_train : array-like of shape (n,)
    C : float
    tol : float, optional
        Stopping tolerance of the solver.
    max_iter : int, optional
        Iteration cap of the solver (scikit-learn's default; past it liblinear
        warns and returns its current solution).
    seed : int, optional
        Seed of liblinear's coordinate order.
    n_jobs : int, optional
        Threads over the one-vs-one class pairs.

    Returns
    -------
    sklearn.multiclass.OneVsOneClassifier
    """
    from sklearn.multiclass import OneVsOneClassifier
    from sklearn.svm import LinearSVC

    base = LinearSVC(
        loss="hinge", dual=True, C=C, tol=tol, max_iter=max_iter, intercept_scaling=1.0, random_state=seed
    )
    from joblib import parallel_config

    with parallel_config(backend="threading"):  # liblinear releases the GIL; threads share the features
        return OneVsOneClassifier(base, n_jobs=n_jobs).fit(features, y_train)
