"""Evaluation measures: scikit-learn's, the ordinal paper's macro-averaged MAE and the Fisher paper's average precision.

Saunders et al. (Section 5) define average precision as "the average of
precision values obtained when thresholding at each positively classified
document". :func:`thresholded_average_precision` is that measure (read as:
over the relevant documents the classifier puts above its threshold);
:func:`precision_at_positive_predictions` is the other reading (over every
positively classified document); scikit-learn's ``average_precision_score``
is the usual average over the whole ranking. In all three a document tied in
score with others takes the precision at the end of its group of ties (as
scikit-learn does), so the value does not depend on how ties are ordered.
"""

from __future__ import annotations

import numpy as np
from sklearn.metrics import accuracy_score, average_precision_score, f1_score, mean_absolute_error


def classification_scores(y_true, y_pred) -> dict[str, float]:
    """Accuracy and macro-averaged F1 of single-label predictions.

    Parameters
    ----------
    y_true, y_pred : array-like
        Gold and predicted labels.

    Returns
    -------
    dict
        ``{"accuracy": ..., "macro_f1": ...}`` as fractions.
    """
    return {
        "accuracy": float(accuracy_score(y_true, y_pred)),
        "macro_f1": float(f1_score(y_true, y_pred, average="macro", zero_division=0)),
    }


def _precision_at_each(y_true: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Precision of the ranking cut just below each item's score: relevant / all items scoring at least as high."""
    ascending = np.sort(scores)
    relevant = np.sort(scores[y_true])
    above = scores.size - np.searchsorted(ascending, scores, side="left")
    hits = relevant.size - np.searchsorted(relevant, scores, side="left")
    return hits / above


def _mean_precision_over(y_true, scores, threshold: float, *, relevant_only: bool) -> float:
    y_true = np.asarray(y_true, dtype=bool)
    scores = np.asarray(scores, dtype=float)
    if y_true.shape != scores.shape:
        raise ValueError(f"y_true has shape {y_true.shape} but scores {scores.shape}")
    if not y_true.any():
        return float("nan")
    selected = scores > threshold
    if relevant_only:
        selected &= y_true
    if not selected.any():
        return 0.0
    return float(_precision_at_each(y_true, scores)[selected].mean())


def thresholded_average_precision(y_true, scores, *, threshold: float = 0.0) -> float:
    """The Fisher paper's average precision: mean precision at each relevant, positively classified item.

    Items are ranked by score; for every relevant item scoring above
    ``threshold`` (a true positive of the classifier), take the precision of
    the ranking cut at that item; average these.

    Parameters
    ----------
    y_true : array-like of bool
        Whether each item is relevant (belongs to the category).
    scores : array-like of float
        Decision values (higher = more likely relevant).
    threshold : float, optional
        Items scoring strictly above it are positively classified (0: the SVM's).

    Returns
    -------
    float
        NaN if no item is relevant (as for the ranking AP); 0 if the
        classifier puts no relevant item above the threshold.
    """
    return _mean_precision_over(y_true, scores, threshold, relevant_only=True)


def precision_at_positive_predictions(y_true, scores, *, threshold: float = 0.0) -> float:
    """The other reading of the paper's definition: mean precision at every positively classified item.

    As :func:`thresholded_average_precision`, but averaging over every item
    scoring above ``threshold``, relevant or not.

    Returns
    -------
    float
        NaN if no item is relevant; 0 if no item scores above the threshold.
    """
    return _mean_precision_over(y_true, scores, threshold, relevant_only=False)


def ranking_scores(y_true, scores, y_pred) -> dict[str, float]:
    """Average precision (the paper's and over the whole ranking) plus F1 at the decision threshold.

    Parameters
    ----------
    y_true : array-like of bool
        Whether each item belongs to the category.
    scores : array-like of float
        Decision values (higher = more likely positive), thresholded at 0.
    y_pred : array-like of bool
        Thresholded decisions; must be ``scores > 0``.

    Returns
    -------
    dict
        ``average_precision`` (:func:`thresholded_average_precision`),
        ``average_precision_ranking`` (scikit-learn's non-interpolated AP over
        the whole ranking; both NaN if there is no positive item) and ``f1``.

    Raises
    ------
    ValueError
        If ``y_pred`` is not ``scores > 0``.
    """
    y_true = np.asarray(y_true, dtype=bool)
    scores = np.asarray(scores, dtype=float)
    y_pred = np.asarray(y_pred, dtype=bool)
    if not np.array_equal(y_pred, scores > 0):
        raise ValueError("ranking_scores: the decisions y_pred must be scores > 0 (decision values thresholded at 0)")
    ranking = float(average_precision_score(y_true, scores)) if y_true.any() else float("nan")
    return {
        "average_precision": thresholded_average_precision(y_true, scores),
        "average_precision_ranking": ranking,
        "f1": float(f1_score(y_true, y_pred, zero_division=0)),
    }


def mae_macro(y_true, y_pred) -> float:
    """Macro-averaged mean absolute error (Baccianella et al., Eq. 3): the mean over the true ranks.

    Parameters
    ----------
    y_true, y_pred : array-like of int
        Gold and predicted ranks (star ratings), of the same non-zero length.

    Returns
    -------
    float
        The mean over the distinct values of ``y_true`` of the mean absolute
        error on the items of that true rank. A predicted rank absent from
        ``y_true`` has no term of its own.

    Raises
    ------
    ValueError
        If the arrays are empty, not 1-D, or of different lengths.
    """
    y_true = np.asarray(y_true)
    y_pred = np.asarray(y_pred)
    if y_true.ndim != 1 or y_true.shape != y_pred.shape or not y_true.size:
        raise ValueError(
            f"mae_macro: y_true and y_pred must be 1-D of one non-zero length, got shapes {y_true.shape} and {y_pred.shape}"
        )
    # the same sums in the same order as imbalanced-learn's macro_averaged_mean_absolute_error, where it is defined
    per_rank = [np.mean(np.abs(y_pred[y_true == r] - y_true[y_true == r])) for r in np.unique(y_true)]
    return float(np.sum(per_rank) / len(per_rank))


def ordinal_scores(y_true, y_pred) -> dict[str, float]:
    """Macro-averaged MAE (Baccianella et al., Eq. 3), plain MAE and accuracy on star ratings.

    Parameters
    ----------
    y_true, y_pred : array-like of int
        Gold and predicted star ratings.

    Returns
    -------
    dict
        ``mae_macro``, ``mae`` and ``accuracy``.
    """
    y_true = np.asarray(y_true)
    y_pred = np.asarray(y_pred)
    return {
        "mae_macro": mae_macro(y_true, y_pred),
        "mae": float(mean_absolute_error(y_true, y_pred)),
        "accuracy": float(accuracy_score(y_true, y_pred)),
    }
