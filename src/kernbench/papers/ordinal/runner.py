"""One (dataset, system) of the ordinal experiment: score features once, tune ``a``, evaluate every level.

Protocol (the paper's Section 3): bag of words after English stop-word
removal, no stemming, tf-idf weighting, cosine normalisation; a linear
epsilon-SVR whose real-valued output is rounded to the nearest rank and
clipped to 1-5; MAE^M (Eq. 3) on the test set. For ``Var*IDF``,
``RR(Var*IDF)`` and ``RR(NC*IDF)`` the exponent ``a`` is chosen on the
validation set: features are scored on ``train`` (the paper's ``Tr`` minus
``Va``), a regressor is trained on ``train`` at every configured reduction
level and scored on ``dev`` (``Va``), and the ``a`` with the lowest MAE^M
averaged over the levels wins (one ``a`` per method, as the paper tunes "for
each method"). Then vocabulary, feature scores and regressors are refitted
on ``train`` + ``dev`` (the full ``Tr``) and evaluated on ``test`` at every
level. Selecting columns of the raw tf-idf matrix and normalising each
document afterwards gives the cosine-normalised tf-idf vector of the reduced
feature space.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.preprocessing import normalize
from sklearn.svm import LinearSVR

from kernbench.data import SPLITS
from kernbench.metrics import mae_macro
from kernbench.papers.ordinal import METHODS_WITH_A, SYSTEMS, TRIVIAL_RANK
from kernbench.papers.ordinal.scores import feature_order, rank_stats
from kernbench.papers.ordinal.selection import select
from kernbench.progress import progress
from kernbench.runs import select_on_dev


@dataclass
class OrdinalResult:
    """Outcome of one (dataset, system) job.

    Attributes
    ----------
    rows : list of dict
        ``{"dataset", "split", "metric", "value"}`` plus ``"xi"`` for every
        evaluated level (FFS is the level 1.0; Triv has no level).
    curves : dict
        ``xi`` (the levels), ``test.mae_macro`` (one value per level) and,
        for tuned methods, ``dev.mae_macro.a_<a>`` for every ``a`` tried.
    predictions : pandas.DataFrame
        ``id, xi, y_true, y_pred`` on the test set.
    chosen : dict
        ``a`` selected on dev, ``n_features`` of the final vocabulary.
    timings : dict
        Seconds spent scoring, tuning and evaluating.
    """

    rows: list[dict]
    curves: dict
    predictions: pd.DataFrame
    chosen: dict = field(default_factory=dict)
    timings: dict = field(default_factory=dict)


def _vectorise(settings: dict, fit_docs, *other_docs):
    vectoriser = TfidfVectorizer(
        lowercase=True,
        stop_words="english",
        min_df=settings["min_df"],
        sublinear_tf=settings["sublinear_tf"],
        norm=None,
    )
    fitted = vectoriser.fit_transform(fit_docs).tocsc()
    return (fitted, *(vectoriser.transform(d).tocsc() for d in other_docs))


def fit_predict(x_train, y_train, x_eval, columns, *, settings: dict, seed: int) -> np.ndarray:
    """Train the epsilon-SVR on the given columns and predict ranks.

    Parameters
    ----------
    x_train, x_eval : scipy.sparse matrix
        Un-normalised tf-idf of the training and evaluated documents.
    y_train : numpy.ndarray
        Training ranks.
    columns : numpy.ndarray or None
        Selected feature indices (None: all features).
    settings : dict
        ``C``, ``svr_epsilon``, ``max_iter``.
    seed : int
        Solver seed.

    Returns
    -------
    numpy.ndarray of int
        Predictions rounded to the nearest integer and clipped to 1-5.
    """
    if columns is not None:
        x_train, x_eval = x_train[:, columns], x_eval[:, columns]
    model = LinearSVR(
        C=settings["C"],
        epsilon=settings["svr_epsilon"],
        loss="epsilon_insensitive",
        dual=True,
        max_iter=settings["max_iter"],
        random_state=seed,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(normalize(x_train.tocsr()), y_train)
    return np.clip(np.rint(model.predict(normalize(x_eval.tocsr()))), 1, 5).astype(int)


def _score_settings(settings: dict) -> dict:
    return {
        "epsilon": settings["epsilon"],
        "nc_epsilon": settings["nc_epsilon"],
        "prp_spread": settings["prp_spread"],
        "prp_weights": settings["prp_weights"],
    }


def _curve(order, levels, x_train, y_train, x_eval, y_eval, settings, seed, desc):
    values, predictions = [], []
    for xi in progress(levels, desc=desc, unit="level"):
        y_pred = fit_predict(x_train, y_train, x_eval, select(order, xi), settings=settings, seed=seed)
        values.append(mae_macro(y_eval, y_pred))
        predictions.append(y_pred)
    return values, predictions


def run_system(
    frame: pd.DataFrame, *, dataset: str, system: str, settings: dict, seed: int, test_levels=None
) -> OrdinalResult:
    """Run one system of the paper's Figure 1 on one prepared review dataset.

    Parameters
    ----------
    frame : pandas.DataFrame
        Prepared dataset with ``id``, ``split`` (train/dev/test), ``label`` (1-5) and ``text``.
    dataset : str
        Its name, for the rows.
    system : str
        ``FFS``, ``Triv`` or one of :data:`kernbench.papers.ordinal.SELECTION_METHODS`.
    settings : dict
        The ``ordinal`` config block (``levels``, ``a_grid``, ``C``,
        ``svr_epsilon``, ``max_iter``, ``epsilon``, ``nc_epsilon``, ``prp_spread``, ``prp_weights``,
        ``min_df``, ``sublinear_tf``).
    seed : int
        Solver seed.
    test_levels : sequence of float, optional
        Levels evaluated on test (default: ``settings["levels"]``). ``a`` is still chosen on dev over
        every level of ``settings["levels"]``, so a run restricted to a few test levels keeps the ``a``
        of the full run.

    Returns
    -------
    OrdinalResult

    Raises
    ------
    ValueError
        If the system is unknown, a split the protocol needs is empty or a test level is not one of
        ``settings["levels"]``.
    """
    if system not in SYSTEMS:
        raise ValueError(f"unknown ordinal system {system!r}; expected one of {list(SYSTEMS)}")
    parts = {s: frame[frame["split"] == s] for s in SPLITS}
    empty = [s for s, part in parts.items() if part.empty]
    if empty:
        raise ValueError(f"{dataset}: split(s) {empty} are empty; the protocol needs train, dev and test")
    full_train = pd.concat([parts["train"], parts["dev"]], ignore_index=True)
    test = parts["test"]
    y_full, y_test = full_train["label"].to_numpy(dtype=int), test["label"].to_numpy(dtype=int)
    levels = [float(xi) for xi in settings["levels"]]
    evaluated = levels if test_levels is None else [float(xi) for xi in test_levels]
    unknown = [xi for xi in evaluated if not np.isclose(levels, xi).any()]
    if unknown:
        raise ValueError(f"{dataset}: test level(s) {unknown} are not in ordinal.run.levels")
    timings: dict[str, float] = {}
    row = {"dataset": dataset, "split": "test", "metric": "mae_macro"}

    if system == "Triv":
        y_pred = np.full(len(test), TRIVIAL_RANK)
        value = mae_macro(y_test, y_pred)
        predictions = pd.DataFrame({"id": test["id"].to_numpy(), "xi": np.nan, "y_true": y_test, "y_pred": y_pred})
        return OrdinalResult([{**row, "value": value}], {}, predictions, {}, timings)

    started = time.perf_counter()
    x_full, x_test = _vectorise(settings, full_train["text"], test["text"])
    timings["vectorise"] = time.perf_counter() - started
    if system == "FFS":
        started = time.perf_counter()
        y_pred = fit_predict(x_full, y_full.astype(float), x_test, None, settings=settings, seed=seed)
        timings["evaluate"] = time.perf_counter() - started
        value = mae_macro(y_test, y_pred)
        predictions = pd.DataFrame({"id": test["id"].to_numpy(), "xi": 1.0, "y_true": y_test, "y_pred": y_pred})
        chosen = {"n_features": int(x_full.shape[1])}
        return OrdinalResult([{**row, "xi": 1.0, "value": value}], {}, predictions, chosen, timings)

    curves: dict[str, list[float]] = {"xi": evaluated}
    chosen: dict = {}
    a = None
    if system in METHODS_WITH_A:
        started = time.perf_counter()
        train, dev = parts["train"], parts["dev"]
        x_train, x_dev = _vectorise(settings, train["text"], dev["text"])
        stats = rank_stats(x_train, train["label"])
        y_train, y_dev = train["label"].to_numpy(dtype=float), dev["label"].to_numpy(dtype=int)
        means = []
        for candidate in settings["a_grid"]:
            order = feature_order(system, stats, a=float(candidate), **_score_settings(settings))
            values, _ = _curve(order, levels, x_train, y_train, x_dev, y_dev, settings, seed,
                               desc=f"{dataset} {system} dev, a={float(candidate):g}")
            curves[f"dev.mae_macro.a_{float(candidate):g}"] = values
            means.append(float(np.mean(values)))
        _, a, _ = select_on_dev(zip(settings["a_grid"], means, settings["a_grid"]), higher_is_better=False)
        a = float(a)
        chosen["a"] = a
        chosen["dev_mean_mae_macro"] = {f"{float(c):g}": m for c, m in zip(settings["a_grid"], means)}
        timings["tune"] = time.perf_counter() - started

    started = time.perf_counter()
    stats = rank_stats(x_full, y_full)
    order = feature_order(system, stats, a=a, **_score_settings(settings))
    timings["score"] = time.perf_counter() - started
    started = time.perf_counter()
    values, predicted = _curve(order, evaluated, x_full, y_full.astype(float), x_test, y_test, settings, seed,
                               desc=f"{dataset} {system} test")
    timings["evaluate"] = time.perf_counter() - started
    curves["test.mae_macro"] = values
    chosen["n_features"] = int(x_full.shape[1])
    rows = [{**row, "xi": xi, "value": v} for xi, v in zip(evaluated, values)]
    predictions = pd.concat(
        [
            pd.DataFrame({"id": test["id"].to_numpy(), "xi": xi, "y_true": y_test, "y_pred": y_pred})
            for xi, y_pred in zip(evaluated, predicted)
        ],
        ignore_index=True,
    )
    return OrdinalResult(rows, curves, predictions, chosen, timings)
