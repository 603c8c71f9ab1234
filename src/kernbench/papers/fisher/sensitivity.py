"""Rows of the sensitivity table for Table 1: how the choices the paper leaves open move each cell.

Every row compares one alternative with the default on the same test items of
one (category, system) cell (:func:`kernbench.report.sensitivity.sensitivity_row`);
the default's scores are the main ``fisher-svm`` job's predictions, and only
the alternative is re-run here, with the library functions of
:mod:`kernbench.papers.fisher.experiment`. One choice varies at a time; every other
setting, the c of Eq. 2 the main run used included, stays as in the main run.

``fisher.ap_reading``
    The paper's average precision (at each relevant, positively classified
    document) against scikit-learn's over the whole ranking and against the
    mean precision at every positively classified document, on the main
    run's scores (no re-run; metric = the alternative measure).
``fisher.c``
    Each c of ``fisher.c_grid`` against the one used (systems that depend on c).
``fisher.documents``
    The other ModApte document sets. A document set filters the test documents
    too, so these rows compare on the alternative's test documents: the
    default's value there is the main run's AP restricted to them, and the
    difference is that of the training documents.
``fisher.loss``
    The other loss; the squared hinge is liblinear's only (its bias penalised
    as ``fisher.intercept_scaling`` says).
``fisher.solver``
    The other solver with the hinge loss: liblinear, whose bias is regularised,
    against libsvm, whose bias is not (SVMlight's problem), or the reverse.
``fisher.lowercase``, ``fisher.collapse_whitespace``
    The documents without that step of the text normalisation.
``fisher.max_state_length``
    Caps on the FSA state length against the configured one (FSA systems).
"""

from __future__ import annotations

import logging
import time

import numpy as np
import pandas as pd

from kernbench.errors import DataError
from kernbench.kernels.fisher import Features
from kernbench.papers.fisher.experiment import (
    DOCUMENT_SETS,
    SVM_KEYS,
    depends_on_c,
    feature_counts,
    load_features,
    svm_decisions,
    weighted_features,
)
from kernbench.papers.fisher.plan import SENSITIVITY_CHOICES, SVM_CHOICES
from kernbench.papers.fisher.systems import SYSTEMS
from kernbench.report.sensitivity import sensitivity_row
from kernbench.report.uncertainty import METRICS, paired_comparison

log = logging.getLogger("kernbench.fisher")

PAPER = "fisher"
TABLE = "fisher"
#: Choices that rebuild the features with one text-normalisation step switched.
TEXT_CHOICES = ("lowercase", "collapse_whitespace")
#: The measures the paper's average precision is set against in ``fisher.ap_reading``.
AP_READINGS = {
    "average_precision_ranking": "over the whole ranking (scikit-learn)",
    "precision_at_positive_predictions": "at every positively classified document",
}
DEFAULT_READING = "at each relevant, positively classified document"


def _cell(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[frame["split"] == "test"] if "split" in frame else frame


def ap_reading_rows(defaults: dict, *, resamples: int, seed: int) -> list[dict]:
    """``fisher.ap_reading`` rows from the main run's scores.

    Parameters
    ----------
    defaults : dict
        ``{(category, system): predictions DataFrame}`` of the main run.
    resamples, seed : int
        Paired bootstrap.
    """
    rows = []
    for (category, system), items in sorted(defaults.items()):
        truth, score = items["y_true"].to_numpy(), items["score"].to_numpy()
        for metric, label in AP_READINGS.items():
            result = paired_comparison(
                metric, truth, score, score, metric_b="average_precision", n_resamples=resamples, seed=seed
            )
            value = METRICS[metric][0](truth, score)
            rows.append({
                "paper": PAPER, "table": TABLE, "choice": "fisher.ap_reading", "dataset": category,
                "system": system, "split": "test", "metric": metric,
                "default": f"average_precision ({DEFAULT_READING})", "alternative": f"{metric} ({label})",
                "value_default": 100.0 * (value - result["difference"]), "value": 100.0 * value,
                "delta": 100.0 * result["difference"], "ci_low": 100.0 * result["ci_low"],
                "ci_high": 100.0 * result["ci_high"], "p_bootstrap": result["p_bootstrap"],
                "n_items": result["n_items"],
            })
    return rows


def _scores(frame, features, train_ids, test_ids, categories, svm: dict, seed: int) -> dict:
    """Test decision values of one alternative's features, per category, indexed by document id."""
    truth = frame.set_index("id")["label"]
    labels = {}
    for category in categories:
        y_train = np.array([category in truth[i] for i in train_ids])
        if y_train.all() or not y_train.any():
            raise DataError(f"{category}: the training documents are all in or all out of the category")
        labels[category] = y_train
    decisions = svm_decisions(features.train, features.test, labels, **svm, seed=seed)
    return {category: pd.Series(decision, index=test_ids) for category, decision in decisions.items()}


def _rows_against(
    choice: str, system: str, default: str, alternative: str, scores: dict, defaults: dict, *, resamples, seed
) -> list[dict]:
    rows = []
    for category, alt in scores.items():
        items = defaults[(category, system)].set_index("id")
        ids = [i for i in items.index if i in alt.index]
        if len(ids) < 2:
            raise DataError(f"{choice}: {system} on {category}: fewer than two test documents shared with the main run")
        rows.append(sensitivity_row(
            paper=PAPER, table=TABLE, choice=choice, dataset=category, system=system, metric="average_precision",
            default=default, alternative=alternative, y_true=items.loc[ids, "y_true"].to_numpy(),
            y_default=items.loc[ids, "score"].to_numpy(), y_alternative=alt.loc[ids].to_numpy(),
            resamples=resamples, seed=seed,
        ))
    return rows


def _svm_alternative(choice: str, params: dict) -> tuple[str, str, dict]:
    """Labels of the default and the alternative SVM of a :data:`SVM_CHOICES` choice, and the keys it changes."""
    solver, loss = params["solver"], params["loss"]
    if choice == "loss":
        other = "hinge" if loss == "squared_hinge" else "squared_hinge"
        return f"{loss} ({solver})", f"{other} (liblinear)", {"loss": other, "solver": "liblinear"}
    other = "liblinear" if solver == "libsvm" else "libsvm"
    return f"{solver} ({loss})", f"{other} (hinge)", {"solver": other, "loss": "hinge"}


def alternative_rows(
    choice: str,
    frame: pd.DataFrame,
    defaults: dict,
    used_c: dict,
    params: dict,
    *,
    resamples: int,
    seed: int,
    feature_paths: dict | None = None,
) -> list[dict]:
    """Rows of a choice whose alternatives are re-run (every choice of :data:`SENSITIVITY_CHOICES` but ``ap_reading``).

    Parameters
    ----------
    choice : str
        One of :data:`SENSITIVITY_CHOICES` other than ``ap_reading``.
    frame : pandas.DataFrame
        The prepared ``reuters`` table.
    defaults : dict
        ``{(category, system): predictions}`` of the main run for the systems to vary.
    used_c : dict
        System -> the c its main run used (None where unused).
    params : dict
        The ``fisher`` config block (with ``sensitivity``).
    resamples, seed : int
        Paired bootstrap, and the seed of the SVMs (as the main run).
    feature_paths : dict, optional
        System -> the main run's feature cache (the :data:`SVM_CHOICES` re-use it).
    """
    systems = sorted({s for _, s in defaults}, key=list(SYSTEMS).index)
    categories = sorted({c for c, _ in defaults})
    svm = {k: params[k] for k in SVM_KEYS}
    fixed = params
    rows = []
    if choice == "c":
        for system in [s for s in systems if depends_on_c(s)]:
            counts, train, test = feature_counts(frame, system, fixed)
            c0 = used_c[system]
            default = f"c = {c0:g}" + (" (chosen by CV)" if params["c"] == "cv" else "")
            for c in [float(x) for x in params["c_grid"] if not np.isclose(float(x), c0)]:
                features = weighted_features(counts, system, c)
                scores = _scores(frame, features, train["id"].to_numpy(), test["id"].to_numpy(), categories, svm, seed)
                rows += _rows_against("fisher.c", system, default, f"c = {c:g}", scores, defaults,
                                      resamples=resamples, seed=seed)
    elif choice == "documents":
        for documents in [d for d in DOCUMENT_SETS if d != params["documents"]]:
            for system in systems:
                counts, train, test = feature_counts(frame, system, {**fixed, "documents": documents})
                features = weighted_features(counts, system, used_c[system])
                scores = _scores(frame, features, train["id"].to_numpy(), test["id"].to_numpy(), categories, svm, seed)
                rows += _rows_against("fisher.documents", system, params["documents"], documents, scores, defaults,
                                      resamples=resamples, seed=seed)
    elif choice in SVM_CHOICES:
        default, alternative, changed = _svm_alternative(choice, params)
        for system in systems:
            if feature_paths and system in feature_paths:
                x_train, x_test, train_ids, test_ids = load_features(feature_paths[system])
                features = Features(x_train, x_test)
            else:
                counts, train, test = feature_counts(frame, system, fixed)
                features = weighted_features(counts, system, used_c[system])
                train_ids, test_ids = train["id"].to_numpy(), test["id"].to_numpy()
            scores = _scores(frame, features, train_ids, test_ids, categories, {**svm, **changed}, seed)
            rows += _rows_against(f"fisher.{choice}", system, default, alternative, scores, defaults,
                                  resamples=resamples, seed=seed)
    elif choice in TEXT_CHOICES:
        alternative = not params[choice]
        for system in [s for s in systems if SYSTEMS[s][0] != "bow"]:
            counts, train, test = feature_counts(frame, system, {**fixed, choice: alternative})
            features = weighted_features(counts, system, used_c[system])
            scores = _scores(frame, features, train["id"].to_numpy(), test["id"].to_numpy(), categories, svm, seed)
            rows += _rows_against(f"fisher.{choice}", system, str(params[choice]).lower(), str(alternative).lower(),
                                  scores, defaults, resamples=resamples, seed=seed)
    elif choice == "max_state_length":
        default_cap = params["max_state_length"]
        fsa = [s for s in systems if SYSTEMS[s][0] == "fsa"]
        for cap in [m for m in params["sensitivity"]["max_state_lengths"] if m != default_cap]:
            counts = None
            for system in fsa:
                if counts is None:  # one F_t per cap serves every FSA weighting
                    counts, train, test = feature_counts(frame, system, {**fixed, "max_state_length": cap})
                features = weighted_features(counts, system, used_c[system])
                scores = _scores(frame, features, train["id"].to_numpy(), test["id"].to_numpy(), categories, svm, seed)
                rows += _rows_against("fisher.max_state_length", system, str(default_cap or "none"), str(cap),
                                      scores, defaults, resamples=resamples, seed=seed)
    else:
        raise ValueError(
            f"unknown fisher sensitivity choice {choice!r}; expected one of {', '.join(SENSITIVITY_CHOICES)}"
        )
    return rows


def sensitivity_rows(
    choice: str, frame: pd.DataFrame | None, records: list[dict], params: dict, *, resamples: int, seed: int,
    feature_paths: dict | None = None,
) -> tuple[list[dict], float]:
    """Every row of one choice, from the main run's records; also the seconds it took.

    Parameters
    ----------
    choice : str
        One of :data:`SENSITIVITY_CHOICES`.
    frame : pandas.DataFrame or None
        The prepared ``reuters`` table (not needed for ``ap_reading``).
    records : list of dict
        The main ``fisher-svm`` run records of the cells to cover.
    params : dict
        The ``fisher`` config block.
    resamples, seed : int
    feature_paths : dict, optional
        System -> the main run's feature cache.
    """
    started = time.perf_counter()
    defaults, used_c = {}, {}
    for record in records:
        items = _cell(pd.read_parquet(record["predictions"]))
        category = record["params"]["category"]
        defaults[(category, record["system"])] = items[items["category"] == category] if "category" in items else items
        used_c[record["system"]] = record["params"].get("c")
    if not defaults:
        return [], time.perf_counter() - started
    if choice == "ap_reading":
        rows = ap_reading_rows(defaults, resamples=resamples, seed=seed)
    else:
        if frame is None:
            raise ValueError(f"fisher.{choice} re-runs the alternative and needs the prepared reuters table")
        rows = alternative_rows(choice, frame, defaults, used_c, params, resamples=resamples, seed=seed,
                                feature_paths=feature_paths)
    return rows, time.perf_counter() - started
