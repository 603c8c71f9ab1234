"""Table 1 of Saunders, Shawe-Taylor & Vinokourov: six feature maps, one linear SVM per Reuters category.

A features job builds the sparse train/test matrices of one system
(:func:`build_features`, cached with :func:`save_features`); a light job per
(system, category) trains a linear SVM on them and scores the test ranking
(:func:`run_category`).

The initial count c of Eq. 2 (which only the ``nonuniform`` and ``ln``
weightings use) is either fixed (``fisher.c``: a number) or, with
``fisher.c: cv``, chosen per system by stratified k-fold cross-validation on
the training documents (:func:`choose_c`): for every c of ``fisher.c_grid``,
the mean over the configured categories and folds of the paper's average
precision on the held-out folds; the best c (the first listed on ties) builds
the features. p is estimated once per c on all training documents, so the
counts are built once and only re-weighted per c.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.model_selection import StratifiedKFold
from sklearn.svm import SVC, LinearSVC

from kernbench.cache import load_arrays, save_arrays
from kernbench.errors import DataError
from kernbench.kernels.fisher import (
    Alphabet,
    Features,
    TransitionCounts,
    fisher_weights,
    fsa_counts,
    ngram_counts,
    normalise_text,
    weight_counts,
)
from kernbench.kernels.sparse_linear import sparse_linear_gram
from kernbench.metrics import ranking_scores, thresholded_average_precision
from kernbench.papers.fisher.systems import SYSTEMS
from kernbench.progress import progress
from kernbench.runs import select_on_dev, table_rows


#: Row metrics of a (system, category) run record.
METRICS = ("average_precision", "average_precision_ranking", "precision", "recall", "f1")


def depends_on_c(system: str) -> bool:
    """Whether a system's features use the initial count c of Eq. 2 (the ``nonuniform`` and ``ln`` weightings)."""
    return SYSTEMS[system][1] in ("nonuniform", "ln")


#: Which ModApte documents take part (``documents`` in the config).
DOCUMENT_SETS = ("all", "with_topics", "top10")


def select_documents(frame: pd.DataFrame, documents: str) -> pd.DataFrame:
    """The ModApte documents of one of :data:`DOCUMENT_SETS`.

    ``all`` keeps every ModApte document (9603 train / 3299 test),
    ``with_topics`` those with at least one topic (7775 / 3019), ``top10``
    those with at least one of the ten categories evaluated.
    """
    if documents == "all":
        return frame
    if documents == "with_topics":
        return frame[[len(labels) > 0 for labels in frame["label"]]]
    if documents == "top10":
        from kernbench.data.reuters import TOP10

        return frame[[bool(set(labels) & set(TOP10)) for labels in frame["label"]]]
    raise ValueError(f"unknown document set {documents!r}; expected one of {', '.join(DOCUMENT_SETS)}")


def _split(frame: pd.DataFrame, split: str) -> pd.DataFrame:
    part = frame[frame["split"] == split]
    if part.empty:
        raise DataError(f"prepared reuters table has no {split!r} documents")
    return part


def category_labels(frame: pd.DataFrame, categories) -> dict[str, np.ndarray]:
    """Membership of each row of ``frame`` in each category (bool arrays, in row order)."""
    return {c: np.fromiter((c in labels for labels in frame["label"]), dtype=bool, count=len(frame)) for c in categories}


def feature_counts(frame: pd.DataFrame, system: str, params: dict):
    """The costly, c-independent part of :func:`build_features`.

    Returns
    -------
    counts : TransitionCounts or Features
        Counts to weight (:func:`kernbench.kernels.fisher.weight_counts`), or
        the finished features of ``BoW-TFIDF``.
    train, test : pandas.DataFrame
        The training and test rows, in feature-row order.
    """
    if system not in SYSTEMS:
        raise ValueError(f"unknown system {system!r}; expected one of {', '.join(SYSTEMS)}")
    family, _ = SYSTEMS[system]
    frame = select_documents(frame, params["documents"])
    train, test = _split(frame, "train"), _split(frame, "test")
    if family == "bow":
        # The BoW-TFIDF baseline's vectoriser: words, lower-cased, smoothed idf, L2-normalised.
        vec = TfidfVectorizer(lowercase=True)
        x_train = vec.fit_transform(list(train["text"])).tocsr()
        return Features(x_train, vec.transform(list(test["text"])).tocsr(), {"features": len(vec.vocabulary_)}), train, test

    def norm(texts):
        return [
            normalise_text(x, lowercase=params["lowercase"], collapse_whitespace=params["collapse_whitespace"])
            for x in texts
        ]

    train_texts, test_texts = norm(train["text"]), norm(test["text"])
    alphabet = Alphabet.from_texts(train_texts)
    codes_train, codes_test = alphabet.encode_all(train_texts), alphabet.encode_all(test_texts)
    if family == "ngram":
        counts = ngram_counts(
            codes_train, codes_test, k=params["k"], min_count=params["min_count"], alphabet_size=len(alphabet)
        )
    else:
        counts = fsa_counts(
            codes_train,
            codes_test,
            t=params["t"],
            alphabet_size=len(alphabet),
            max_state_length=params["max_state_length"],
        )
    return counts, train, test


#: What the weighting factor of each Fisher weighting is, as the run records name it.
WEIGHT_NAMES = {"uniform": "|A|", "nonuniform": "1/p", "ln": "-ln p"}


def weight_range(counts: TransitionCounts, system: str, c: float | None) -> dict:
    """Range of the weighting factor over the features a system's training documents use.

    Parameters
    ----------
    counts : TransitionCounts
        From :func:`feature_counts`.
    system : str
        A Fisher system (not ``BoW-TFIDF``).
    c : float or None
        Initial count of Eq. 2 (None for the uniform weighting).

    Returns
    -------
    dict
        ``weight`` (``-ln p``, ``1/p`` or ``|A|``), its ``min`` and ``max`` over
        the training columns, and their ratio ``max_over_min``.
    """
    weighting = SYSTEMS[system][1]
    columns = counts.columns
    weights = fisher_weights(
        weighting,
        f_ux=counts.f_ux[columns],
        f_u=counts.f_u[columns],
        c=c if depends_on_c(system) else 1.0,
        alphabet_size=counts.alphabet_size,
    )
    low, high = (float(weights.min()), float(weights.max())) if weights.size else (float("nan"), float("nan"))
    return {"weight": WEIGHT_NAMES[weighting], "min": low, "max": high, "max_over_min": high / low}


def weighted_features(counts, system: str, c: float | None) -> Features:
    """The features of ``system`` from :func:`feature_counts` at initial count ``c`` (ignored where unused)."""
    if isinstance(counts, Features):
        return counts
    weighting = SYSTEMS[system][1]
    return weight_counts(counts, weighting=weighting, c=c if depends_on_c(system) else 1.0)


#: Keys of the ``fisher`` config block that set the SVM (:func:`svm_decision`).
SVM_KEYS = ("C", "solver", "loss", "intercept_scaling", "max_iter")
#: SVM solvers: ``libsvm`` solves SVMlight's problem (hinge loss, a bias outside the norm) on the linear Gram
#: matrix; ``liblinear`` is LinearSVC (its bias is the weight of a constant feature, so it is regularised).
SOLVERS = ("libsvm", "liblinear")


def make_svm(*, C: float, loss: str, intercept_scaling: float, max_iter: int, seed: int) -> LinearSVC:
    """liblinear's linear SVM (its dual solver): the ``liblinear`` solver of :func:`svm_decision`.

    liblinear learns the bias b as the weight of one more feature of constant
    value ``intercept_scaling`` s, so the regulariser holds (b/s)²: s = 1
    penalises the bias like any weight; a large s makes that penalty small
    but slows liblinear's convergence by orders of magnitude.
    """
    return LinearSVC(
        C=C, loss=loss, intercept_scaling=intercept_scaling, max_iter=max_iter, random_state=seed, dual=True
    )


def svm_decision(
    x_train, y_train, x_test, *, C: float, solver: str, loss: str, intercept_scaling: float, max_iter: int, seed: int
) -> np.ndarray:
    """Train a linear SVM and return its decision values on ``x_test``.

    Parameters
    ----------
    x_train, x_test : scipy.sparse.csr_matrix
        Feature rows.
    y_train : numpy.ndarray of bool
        Labels of the training rows.
    C : float
        Soft-margin constant.
    solver : {"libsvm", "liblinear"}
        ``libsvm``: scikit-learn's SVC on the precomputed linear Gram matrix,
        the problem SVMlight solves with its defaults (hinge loss, the bias b
        not in the norm, stopping tolerance 0.001); ``loss`` must be hinge and
        ``intercept_scaling``, ``max_iter`` are unused. ``liblinear``:
        :func:`make_svm`.
    loss : {"hinge", "squared_hinge"}
    intercept_scaling : float
        liblinear's bias feature (:func:`make_svm`).
    max_iter : int
        liblinear's iteration limit.
    seed : int
        Random state of the solver.

    Raises
    ------
    ValueError
        On an unknown solver, or libsvm with a loss other than hinge.
    """
    svm = {"C": C, "solver": solver, "loss": loss, "intercept_scaling": intercept_scaling, "max_iter": max_iter}
    return svm_decisions(x_train, x_test, {None: y_train}, **svm, seed=seed)[None]


def svm_decisions(
    x_train, x_test, labels: dict, *, C: float, solver: str, loss: str, intercept_scaling: float, max_iter: int,
    seed: int,
) -> dict:
    """:func:`svm_decision` for several label sets on the same rows (libsvm computes the Gram matrices once).

    Parameters
    ----------
    x_train, x_test : scipy.sparse.csr_matrix
    labels : dict
        Key -> labels of the training rows (bool array).
    C, solver, loss, intercept_scaling, max_iter, seed
        See :func:`svm_decision`.

    Returns
    -------
    dict
        Key -> decision values on ``x_test``.
    """
    if solver == "liblinear":
        svm = {"C": C, "loss": loss, "intercept_scaling": intercept_scaling, "max_iter": max_iter, "seed": seed}
        return {key: make_svm(**svm).fit(x_train, y).decision_function(x_test) for key, y in labels.items()}
    if solver != "libsvm":
        raise ValueError(f"fisher.solver = {solver!r}: expected one of {', '.join(SOLVERS)}")
    if loss != "hinge":
        raise ValueError(f"fisher.loss = {loss!r} needs fisher.solver = liblinear; libsvm solves the hinge loss only")
    gram, cross = sparse_linear_gram(x_train), sparse_linear_gram(x_test, x_train)
    return {key: SVC(kernel="precomputed", C=C, random_state=seed).fit(gram, y).decision_function(cross)
            for key, y in labels.items()}


def choose_c(
    counts: TransitionCounts,
    system: str,
    labels: dict[str, np.ndarray],
    *,
    grid,
    folds: int,
    svm: dict,
    seed: int,
) -> tuple[float, dict]:
    """Choose c of Eq. 2 by stratified k-fold cross-validation on the training documents.

    Parameters
    ----------
    counts : TransitionCounts
        From :func:`feature_counts`; p is estimated on all its training rows, once per c.
    system : str
        A system that :func:`depends_on_c`.
    labels : dict
        Category -> membership of each training row; the criterion is the mean
        over these categories (and the folds) of the paper's average precision
        (:func:`kernbench.metrics.thresholded_average_precision`) on the held-out fold.
    grid : sequence of float
        Values of c tried.
    folds : int
        k of the stratified k-fold split (the same split for every c).
    svm : dict
        The :data:`SVM_KEYS`.
    seed : int
        Seed of the fold split and of liblinear.

    Returns
    -------
    c : float
        The best c; the first of ``grid`` on ties.
    scores : dict
        c (as str) -> mean held-out average precision.

    Raises
    ------
    DataError
        If a category has fewer training documents in or out of it than ``folds``.
    """
    splits = {}
    for category, y in labels.items():
        if min(int(y.sum()), int((~y).sum())) < folds:
            raise DataError(
                f"fisher.cv_folds = {folds}: category {category!r} has {int(y.sum())} of {y.size} training "
                "documents, too few in or out of it for a stratified split"
            )
        splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
        splits[category] = list(splitter.split(np.zeros(y.size), y))
    scores = {}
    for c in progress(grid, desc=f"{system} {folds}-fold CV of c", unit="c"):
        x = weighted_features(counts, system, float(c)).train
        values = []
        for category, y in labels.items():
            for fit_rows, held_out in splits[category]:
                decision = svm_decision(x[fit_rows], y[fit_rows], x[held_out], **svm, seed=seed)
                values.append(thresholded_average_precision(y[held_out], decision))
        scores[str(c)] = float(np.mean(values))
    _, best, _ = select_on_dev((str(c), scores[str(c)], c) for c in grid)
    return float(best), scores


def resolve_c(counts, system: str, train: pd.DataFrame, params: dict, seed: int | None) -> tuple[float | None, dict]:
    """The c a system's features use: ``params["c"]``, or :func:`choose_c` when it is ``"cv"``.

    Returns
    -------
    c : float or None
        None for a system that does not depend on c.
    info : dict
        ``c`` and, after cross-validation, ``c_cv`` (grid, folds, categories,
        per-c scores, seconds).
    """
    if not depends_on_c(system):
        return None, {"c": None}
    if params["c"] != "cv":
        return float(params["c"]), {"c": float(params["c"])}
    if seed is None:
        raise ValueError("fisher.c = 'cv' needs a seed for the fold split")
    started = time.perf_counter()
    labels = category_labels(train, params["categories"])
    svm = {k: params[k] for k in SVM_KEYS}
    c, scores = choose_c(counts, system, labels, grid=params["c_grid"], folds=params["cv_folds"], svm=svm, seed=seed)
    cv = {
        "grid": [float(x) for x in params["c_grid"]],
        "folds": int(params["cv_folds"]),
        "categories": list(params["categories"]),
        "criterion": "mean held-out average_precision",
        "scores": scores,
        "seconds": time.perf_counter() - started,
    }
    return c, {"c": c, "c_cv": cv}


def build_features(
    frame: pd.DataFrame, system: str, params: dict, *, seed: int | None = None
) -> tuple[Features, np.ndarray, np.ndarray]:
    """Feature matrices of one system on the ModApte training and test documents.

    Parameters
    ----------
    frame : pandas.DataFrame
        The prepared ``reuters`` table (``id``, ``split``, ``label``, ``text``).
    system : str
        A key of :data:`SYSTEMS`.
    params : dict
        ``documents``, ``lowercase``, ``collapse_whitespace``, ``k``,
        ``min_count``, ``t``, ``c``, ``max_state_length`` (the ``fisher``
        config block); with ``c: "cv"`` also ``c_grid``, ``cv_folds``,
        ``categories`` and the :data:`SVM_KEYS`.
    seed : int, optional
        Seed of the cross-validation (needed with ``c: "cv"``).

    Returns
    -------
    features : Features
        Its ``info`` holds the c used (``c``; None where unused), the
        cross-validation behind it (``c_cv``) and, for the Fisher systems, the
        range of the weighting factor over the training features (``weights``,
        :func:`weight_range`).
    train_ids, test_ids : numpy.ndarray
        Document ids of the rows.
    """
    counts, train, test = feature_counts(frame, system, params)
    c, c_info = resolve_c(counts, system, train, params, seed)
    features = weighted_features(counts, system, c)
    features.info.update(c_info)
    if isinstance(counts, TransitionCounts):
        features.info["weights"] = weight_range(counts, system, c)
    return features, train["id"].to_numpy(), test["id"].to_numpy()


def save_features(path, features: Features, train_ids, test_ids) -> None:
    """Write the matrices and row ids, with their sha256, to one ``.npz`` (atomically; :mod:`kernbench.cache`)."""
    arrays = {"train_ids": np.asarray(train_ids, dtype=str), "test_ids": np.asarray(test_ids, dtype=str)}
    for name, matrix in (("train", features.train), ("test", features.test)):
        matrix = sp.csr_matrix(matrix)
        arrays.update(
            {
                f"{name}_data": matrix.data,
                f"{name}_indices": matrix.indices,
                f"{name}_indptr": matrix.indptr,
                f"{name}_shape": np.array(matrix.shape),
            }
        )
    save_arrays(path, **arrays)


def load_features(path) -> tuple[sp.csr_matrix, sp.csr_matrix, np.ndarray, np.ndarray]:
    """Read what :func:`save_features` wrote: train matrix, test matrix, train ids, test ids.

    Raises
    ------
    kernbench.cache.CacheError
        If the file is truncated or corrupted (its content no longer matches its sha256).
    """
    names = ("train_ids", "test_ids") + tuple(
        f"{n}_{part}" for n in ("train", "test") for part in ("data", "indices", "indptr", "shape")
    )
    z = load_arrays(path, names)
    matrices = [
        sp.csr_matrix((z[f"{n}_data"], z[f"{n}_indices"], z[f"{n}_indptr"]), shape=tuple(z[f"{n}_shape"]))
        for n in ("train", "test")
    ]
    return matrices[0], matrices[1], z["train_ids"], z["test_ids"]


def _labels(frame: pd.DataFrame, ids: np.ndarray, category: str, path_hint: str) -> np.ndarray:
    member = {i: category in labels for i, labels in zip(frame["id"], frame["label"])}
    missing = [i for i in ids if i not in member]
    if missing:
        raise DataError(f"{path_hint}: feature rows {missing[:5]} are not in the prepared reuters table")
    return np.fromiter((member[i] for i in ids), dtype=bool, count=len(ids))


def run_category(
    x_train: sp.csr_matrix,
    x_test: sp.csr_matrix,
    y_train: np.ndarray,
    y_test: np.ndarray,
    *,
    C: float,
    solver: str,
    loss: str,
    intercept_scaling: float,
    max_iter: int,
    seed: int,
) -> tuple[dict, np.ndarray]:
    """Train a linear SVM for one category and score the test ranking.

    Parameters
    ----------
    x_train, x_test : scipy.sparse.csr_matrix
        Feature rows (L2-normalised).
    y_train, y_test : numpy.ndarray of bool
        Category membership.
    C : float
        Soft-margin constant (SVMlight's default 1 / mean(x·x) is 1 here).
    solver, loss, intercept_scaling, max_iter, seed
        See :func:`svm_decision`.

    Returns
    -------
    scores : dict
        ``average_precision`` (the paper's), ``average_precision_ranking``,
        ``precision``, ``recall``, ``f1`` (fractions).
    decision : numpy.ndarray
        Decision values on the test documents.
    """
    if y_train.all() or not y_train.any():
        raise DataError("the training documents are all in or all out of the category; no SVM can be trained")
    decision = svm_decision(
        x_train, y_train, x_test, C=C, solver=solver, loss=loss, intercept_scaling=intercept_scaling,
        max_iter=max_iter, seed=seed,
    )
    return _scores(y_test, decision), decision


def _scores(y_test: np.ndarray, decision: np.ndarray) -> dict:
    """The row metrics of one category from its test decision values (the paper's AP thresholds them at 0)."""
    y_pred = decision > 0
    scores = ranking_scores(y_test, decision, y_pred)
    tp = int((y_pred & y_test).sum())
    scores["precision"] = tp / int(y_pred.sum()) if y_pred.any() else 0.0
    scores["recall"] = tp / int(y_test.sum()) if y_test.any() else 0.0
    return scores


def evaluate_categories(frame: pd.DataFrame, features_path, *, categories, params: dict, seed: int) -> dict:
    """One SVM per category on cached features, the Gram matrices computed once for all of them.

    Parameters
    ----------
    frame : pandas.DataFrame
        The prepared ``reuters`` table (``id``, ``split``, ``label``).
    features_path : path-like
        Cache written by :func:`save_features`.
    categories : sequence of str
        Reuters categories, one binary task each.
    params : dict
        The SVM settings (:data:`SVM_KEYS`).
    seed : int
        Random state of the solver.

    Returns
    -------
    dict
        Category -> ``(rows, predictions)``: table rows (``dataset`` is the category,
        split ``test``) and the per-document ``id``, ``split``, ``category``,
        ``y_true``, ``score``, ``y_pred``.

    Raises
    ------
    DataError
        If a category's training documents are all in it or all out of it.
    """
    x_train, x_test, train_ids, test_ids = load_features(features_path)
    y_train = {c: _labels(frame, train_ids, c, str(features_path)) for c in categories}
    for category, y in y_train.items():
        if y.all() or not y.any():
            raise DataError(f"category {category!r}: the training documents are all in or all out of the category; "
                            "no SVM can be trained")
    decisions = svm_decisions(x_train, x_test, y_train, **{k: params[k] for k in SVM_KEYS}, seed=seed)
    out = {}
    for category in categories:
        y_test = _labels(frame, test_ids, category, str(features_path))
        decision = decisions[category]
        scores = _scores(y_test, decision)
        rows = table_rows(category, "test", {m: float(scores[m]) for m in METRICS})
        predictions = pd.DataFrame({"id": test_ids, "split": "test", "category": category, "y_true": y_test,
                                    "score": decision, "y_pred": decision > 0})
        out[category] = (rows, predictions)
    return out
