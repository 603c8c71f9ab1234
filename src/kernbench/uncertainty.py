"""Uncertainty of the reproduced numbers: bootstrap intervals over test items and paired comparisons.

None of the three papers reports intervals or tests; these functions add them
from the per-item predictions every run record keeps. Resampling is seeded, so
a rerun gives the same intervals.

* :func:`bootstrap_interval` - percentile interval of a metric over resampled
  items (``scipy.stats.bootstrap``); with several seeds of one system, the
  statistic is the seed mean on the same resampled items.
* :func:`paired_comparison` - the difference of a metric between two systems
  on the same items, its paired-bootstrap interval and two-sided p-value, and
  for accuracy the exact McNemar test (a binomial test on the discordant
  items, ``scipy.stats.binomtest``).

The vectorised metrics below compute on a batch of resamples at once what
:mod:`kernbench.metrics` computes with scikit-learn / imbalanced-learn on one
sample (tested to agree).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

CONFIDENCE = 0.95


def _labels(*arrays) -> np.ndarray:
    return np.unique(np.concatenate([np.asarray(a).ravel() for a in arrays]))


def _accuracy(y_true, y_pred):
    return (y_true == y_pred).mean(axis=-1)


def _macro_f1(y_true, y_pred):
    # scikit-learn averages over the labels present in y_true or y_pred of the (re)sample.
    total = np.zeros(y_true.shape[:-1])
    present = np.zeros(y_true.shape[:-1])
    for c in _labels(y_true, y_pred):
        t, p = y_true == c, y_pred == c
        tp = (t & p).sum(axis=-1)
        denom = t.sum(axis=-1) + p.sum(axis=-1)
        total += np.divide(2.0 * tp, denom, out=np.zeros_like(total), where=denom > 0)
        present += denom > 0
    return total / np.maximum(present, 1)


def _mae(y_true, y_pred):
    return np.abs(y_true.astype(float) - y_pred).mean(axis=-1)


def _mae_macro(y_true, y_pred):
    # imbalanced-learn averages the per-class MAE over the classes present in y_true.
    err = np.abs(y_true.astype(float) - y_pred)
    batch, n = y_true.shape[:-1], y_true.shape[-1]
    if not np.issubdtype(y_true.dtype, np.integer) or y_true.size == 0:
        return _mae_macro_by_class(y_true, err)
    lo = int(y_true.min())
    width = int(y_true.max()) - lo + 1
    if width > 64:
        return _mae_macro_by_class(y_true, err)
    # Integer labels in a short range (stars): per-class sums of every resample in two bincounts, no sort.
    rows = int(np.prod(batch, dtype=np.int64))
    codes = (y_true.reshape(rows, n) - lo) + (np.arange(rows, dtype=np.int64) * width)[:, None]
    sums = np.bincount(codes.ravel(), weights=err.ravel(), minlength=rows * width).reshape(rows, width)
    counts = np.bincount(codes.ravel(), minlength=rows * width).reshape(rows, width)
    present = counts > 0
    per_class = np.divide(sums, counts, out=np.zeros_like(sums), where=present)
    return (per_class.sum(axis=-1) / np.maximum(present.sum(axis=-1), 1)).reshape(batch)


def _mae_macro_by_class(y_true, err):
    total = np.zeros(y_true.shape[:-1])
    present = np.zeros(y_true.shape[:-1])
    for c in np.unique(y_true):
        members = y_true == c
        n = members.sum(axis=-1)
        total += np.divide((err * members).sum(axis=-1), n, out=np.zeros_like(total), where=n > 0)
        present += n > 0
    return total / np.maximum(present, 1)


def _binary_counts(y_true, y_pred):
    t, p = y_true.astype(bool), y_pred.astype(bool)
    return (t & p).sum(axis=-1), (~t & p).sum(axis=-1), (t & ~p).sum(axis=-1)


def _precision(y_true, y_pred):
    tp, fp, _ = _binary_counts(y_true, y_pred)
    return np.divide(tp, tp + fp, out=np.zeros(tp.shape), where=tp + fp > 0)


def _recall(y_true, y_pred):
    tp, _, fn = _binary_counts(y_true, y_pred)
    return np.divide(tp, tp + fn, out=np.zeros(tp.shape), where=tp + fn > 0)


def _f1(y_true, y_pred):
    tp, fp, fn = _binary_counts(y_true, y_pred)
    return np.divide(2.0 * tp, 2 * tp + fp + fn, out=np.zeros(tp.shape), where=2 * tp + fp + fn > 0)


def _ranked_precision(y_true, score):
    """Items sorted by decreasing score: relevance, score, and the precision at the end of each item's tie group."""
    truth, score = np.atleast_2d(y_true).astype(bool), np.atleast_2d(np.asarray(score, dtype=float))
    # The order within a group of ties does not matter (each member takes the precision at the group's end),
    # so the faster unstable sort will do.
    order = np.argsort(-score, axis=-1)
    hits = np.take_along_axis(truth, order, -1)
    ranked = np.take_along_axis(score, order, -1)
    n = truth.shape[-1]
    tp = np.cumsum(hits, axis=-1)
    group_end = np.ones(ranked.shape, dtype=bool)
    group_end[..., :-1] = ranked[..., 1:] != ranked[..., :-1]
    positions = np.where(group_end, np.arange(n), n)
    end = np.minimum.accumulate(positions[..., ::-1], axis=-1)[..., ::-1]
    precision = np.take_along_axis(tp / np.arange(1, n + 1), end, -1)
    return hits, ranked, precision, tp[..., -1]


def _mean_precision(y_true, score, selected_of):
    # Mean precision over the selected items; NaN without a relevant item, 0 when nothing is selected.
    hits, ranked, precision, n_pos = _ranked_precision(y_true, score)
    selected = selected_of(hits, ranked)
    count = selected.sum(axis=-1)
    mean = np.where(count > 0, (precision * selected).sum(axis=-1) / np.maximum(count, 1), 0.0)
    value = np.where(n_pos > 0, mean, np.nan)
    return value if np.ndim(y_true) > 1 else value[0]


def _average_precision_ranking(y_true, score):
    # scikit-learn's non-interpolated AP over the whole ranking.
    return _mean_precision(y_true, score, lambda hits, ranked: hits)


def _average_precision(y_true, score):
    # The Fisher paper's AP (kernbench.metrics.thresholded_average_precision): relevant items scoring above 0.
    return _mean_precision(y_true, score, lambda hits, ranked: hits & (ranked > 0))


def _precision_at_positive_predictions(y_true, score):
    # The other reading (kernbench.metrics.precision_at_positive_predictions): every item scoring above 0.
    return _mean_precision(y_true, score, lambda hits, ranked: ranked > 0)


#: metric -> (statistic of (y_true, y) over the last axis, vectorised over leading axes; whether y is a score)
METRICS = {
    "accuracy": (_accuracy, False),
    "macro_f1": (_macro_f1, False),
    "mae": (_mae, False),
    "mae_macro": (_mae_macro, False),
    "precision": (_precision, False),
    "recall": (_recall, False),
    "f1": (_f1, False),
    "average_precision": (_average_precision, True),
    "average_precision_ranking": (_average_precision_ranking, True),
    "precision_at_positive_predictions": (_precision_at_positive_predictions, True),
}


def metric_value(metric: str, y_true, y) -> float:
    """The metric of one sample (``y``: predictions, or scores for the ranking metrics)."""
    return float(METRICS[metric][0](np.asarray(y_true), np.asarray(y)))


def _resample_indices(n: int, n_resamples: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, n, size=(n_resamples, n))


def bootstrap_interval(metric: str, y_true, ys, *, n_resamples: int, seed: int) -> tuple[float, float]:
    """95 % percentile bootstrap interval of a metric over test items.

    Parameters
    ----------
    metric : str
        One of :data:`METRICS`.
    y_true : array-like of shape (n,)
    ys : array-like of shape (n,) or (n_seeds, n)
        Predictions (scores for the ranking metrics); several rows are the
        seeds of one system, and the statistic is their mean on each resample.
    n_resamples : int
    seed : int

    Returns
    -------
    tuple of float
        ``(low, high)``; NaN for fewer than two items.
    """
    y_true = np.asarray(y_true)
    ys = np.atleast_2d(np.asarray(ys))
    if y_true.size < 2:
        return float("nan"), float("nan")
    fn = METRICS[metric][0]

    def statistic(*samples, axis=-1):
        truth, preds = samples[0], samples[1:]
        return np.mean([fn(truth, p) for p in preds], axis=0)

    res = stats.bootstrap(
        (y_true, *ys), statistic, paired=True, vectorized=True, n_resamples=n_resamples,
        confidence_level=CONFIDENCE, method="percentile", random_state=np.random.default_rng(seed),
    )
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def paired_comparison(
    metric: str, y_true, y_a, y_b, *, n_resamples: int, seed: int, metric_b: str | None = None
) -> dict:
    """Difference ``metric(a) - metric(b)`` on the same items, with its paired bootstrap interval and p-value.

    The p-value is two-sided, from the bootstrap distribution of the
    difference: twice the smaller share of resamples on either side of 0
    (capped at 1), so a system compared with itself gets 1. For accuracy
    between two single runs, the exact McNemar p-value (binomial test on the
    items exactly one system gets right) is given too.

    Parameters
    ----------
    metric : str
        One of :data:`METRICS`.
    y_true : array-like of shape (n,)
    y_a, y_b : array-like of shape (n,) or (n_seeds, n)
        Predictions (or scores) of the two systems on the same items; several
        rows are seeds, entering with their mean metric on each resample.
    n_resamples, seed : int
    metric_b : str, optional
        Metric of ``b`` when it differs from ``metric`` (two measures of the
        same predictions, for example); default ``metric``.

    Returns
    -------
    dict
        ``difference``, ``ci_low``, ``ci_high``, ``p_bootstrap``, ``p_mcnemar``
        (NaN unless accuracy of single runs) and ``n_items``.
    """
    y_true = np.asarray(y_true)
    y_a, y_b = np.atleast_2d(np.asarray(y_a)), np.atleast_2d(np.asarray(y_b))
    fn_a, fn_b = METRICS[metric][0], METRICS[metric_b or metric][0]

    def value(fn, idx, ys):
        return np.mean([fn(y_true[idx], y[idx]) for y in ys], axis=0)

    diff = float(np.mean([fn_a(y_true, y) for y in y_a]) - np.mean([fn_b(y_true, y) for y in y_b]))
    idx = _resample_indices(y_true.size, n_resamples, seed)
    d = np.asarray(value(fn_a, idx, y_a) - value(fn_b, idx, y_b), dtype=float)
    d = d[np.isfinite(d)]
    alpha = (1.0 - CONFIDENCE) / 2.0
    low, high = np.quantile(d, [alpha, 1.0 - alpha]) if d.size else (np.nan, np.nan)
    p_boot = min(1.0, 2.0 * min(np.mean(d <= 0), np.mean(d >= 0))) if d.size else float("nan")
    p_mcnemar = float("nan")
    if metric == "accuracy" and metric_b in (None, "accuracy") and len(y_a) == len(y_b) == 1:
        right_a, right_b = y_a[0] == y_true, y_b[0] == y_true
        a_only, b_only = int((right_a & ~right_b).sum()), int((right_b & ~right_a).sum())
        p_mcnemar = 1.0 if a_only + b_only == 0 else float(stats.binomtest(a_only, a_only + b_only, 0.5).pvalue)
    return {
        "difference": diff,
        "ci_low": float(low),
        "ci_high": float(high),
        "p_bootstrap": float(p_boot),
        "p_mcnemar": p_mcnemar,
        "n_items": int(y_true.size),
    }
