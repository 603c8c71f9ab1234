"""Evaluation measures, each taken from scikit-learn or imbalanced-learn."""

from __future__ import annotations

import numpy as np
from imblearn.metrics import macro_averaged_mean_absolute_error
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


def ranking_scores(y_true, scores, y_pred) -> dict[str, float]:
    """Non-interpolated average precision of a ranking, plus F1 at the decision threshold.

    Parameters
    ----------
    y_true : array-like of bool
        Whether each item belongs to the category.
    scores : array-like of float
        Ranking scores (higher = more likely positive).
    y_pred : array-like of bool
        Thresholded decisions.

    Returns
    -------
    dict
        ``average_precision`` (NaN if there is no positive item) and ``f1``.
    """
    y_true = np.asarray(y_true, dtype=bool)
    ap = float(average_precision_score(y_true, scores)) if y_true.any() else float("nan")
    return {"average_precision": ap, "f1": float(f1_score(y_true, y_pred, zero_division=0))}


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
        "mae_macro": float(macro_averaged_mean_absolute_error(y_true, y_pred)),
        "mae": float(mean_absolute_error(y_true, y_pred)),
        "accuracy": float(accuracy_score(y_true, y_pred)),
    }
