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
sample (tested to agree). The resamples of a seed and an item count are drawn
once per process and reused by every cell and comparison of that size. Metrics
that are ratios of item counts (accuracy, macro-F1, precision, recall, F1, and
MAE / MAE^M when every error is a whole number) are computed from the
resamples' draw counts with one matrix product; the sums are of whole numbers,
so they equal the sums over the resampled items exactly, bit for bit. The average
precisions come from the draw counts too, by one cumulative sum over the items in
score order instead of a sort of each resample, summed as the sorted resamples are.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

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


class Metric(NamedTuple):
    """One metric of the tables.

    Attributes
    ----------
    statistic : callable
        ``statistic(y_true, y)`` over the last axis, vectorised over leading axes.
    on_scores : bool
        Whether ``y`` is a score (ranking metrics) rather than a prediction.
    percent : bool
        Whether the tables show it in percent, as the papers print it.
    """

    statistic: Callable
    on_scores: bool
    percent: bool


#: Every metric of the tables, by name: the one list the tables, the comparisons, the sensitivity table and
#: MLflow read.
METRICS = {
    "accuracy": Metric(_accuracy, False, True),
    "macro_f1": Metric(_macro_f1, False, True),
    "mae": Metric(_mae, False, False),
    "mae_macro": Metric(_mae_macro, False, False),
    "precision": Metric(_precision, False, True),
    "recall": Metric(_recall, False, True),
    "f1": Metric(_f1, False, True),
    "average_precision": Metric(_average_precision, True, True),
    "average_precision_ranking": Metric(_average_precision_ranking, True, True),
    "precision_at_positive_predictions": Metric(_precision_at_positive_predictions, True, True),
}

#: Metrics shown in percent.
PERCENT_METRICS = frozenset(name for name, metric in METRICS.items() if metric.percent)


def metric_value(metric: str, y_true, y) -> float:
    """The metric of one sample (``y``: predictions, or scores for the ranking metrics)."""
    return float(METRICS[metric][0](np.asarray(y_true), np.asarray(y)))


@functools.lru_cache(maxsize=2)
def _resample_indices(n: int, n_resamples: int, seed: int) -> np.ndarray:
    # The draws of scipy.stats.bootstrap(paired=True, random_state=default_rng(seed)), in the same order.
    indices = np.random.default_rng(seed).integers(0, n, size=(n_resamples, n))
    indices.flags.writeable = False
    return indices


@functools.lru_cache(maxsize=2)
def _resample_counts(n: int, n_resamples: int, seed: int) -> np.ndarray:
    """``counts[r, i]``: how often resample ``r`` of :func:`_resample_indices` draws item ``i`` (float, for BLAS)."""
    indices = _resample_indices(n, n_resamples, seed)
    codes = indices + (np.arange(n_resamples, dtype=np.int64) * n)[:, None]
    counts = np.bincount(codes.ravel(), minlength=n_resamples * n).reshape(n_resamples, n).astype(float)
    counts.flags.writeable = False
    return counts


@functools.lru_cache(maxsize=2)
def _draws_by_item(n: int, n_resamples: int, seed: int) -> np.ndarray:
    """:func:`_resample_counts` item-major: row ``i`` is how often each resample draws item ``i``."""
    by_item = np.ascontiguousarray(_resample_counts(n, n_resamples, seed).T)
    by_item.flags.writeable = False
    return by_item


def _whole(values: np.ndarray) -> np.ndarray | None:
    """``values`` as floats if every one is a finite whole number (its sums are then exact), else None."""
    values = np.asarray(values, dtype=float)
    return values if np.isfinite(values).all() and np.array_equal(values, np.round(values)) else None


def _counted_accuracy(y_true, y_pred, counts):
    return (counts @ (y_true == y_pred).astype(float)) / y_true.size


def _counted_macro_f1(y_true, y_pred, counts):
    # As _macro_f1: a label absent from a resample adds 0 to neither the sum nor the count of labels.
    total = np.zeros(counts.shape[0])
    present = np.zeros(counts.shape[0])
    for c in _labels(y_true, y_pred):
        t, p = y_true == c, y_pred == c
        tp = counts @ (t & p).astype(float)
        denom = counts @ t.astype(float) + counts @ p.astype(float)
        total += np.divide(2.0 * tp, denom, out=np.zeros_like(total), where=denom > 0)
        present += denom > 0
    return total / np.maximum(present, 1)


def _counted_mae(y_true, y_pred, counts):
    err = _whole(np.abs(y_true.astype(float) - y_pred))
    return None if err is None else (counts @ err) / y_true.size


def _counted_mae_macro(y_true, y_pred, counts):
    err = _whole(np.abs(y_true.astype(float) - y_pred))
    if err is None:
        return None
    in_range = np.issubdtype(y_true.dtype, np.integer) and int(y_true.max()) - int(y_true.min()) < 64
    # Classes as _mae_macro takes them: every label of the range on its bincount path (absent ones add exact
    # zeros to the same sum), else the labels present, added one at a time.
    classes = np.arange(int(y_true.min()), int(y_true.max()) + 1) if in_range else np.unique(y_true)
    members = (y_true[:, None] == classes[None, :]).astype(float)
    sums, sizes = counts @ (members * err[:, None]), counts @ members
    present = sizes > 0
    per_class = np.divide(sums, sizes, out=np.zeros_like(sums), where=present)
    if in_range:
        return per_class.sum(axis=-1) / np.maximum(present.sum(axis=-1), 1)
    total = np.zeros(counts.shape[0])
    for k in range(classes.size):
        total += per_class[:, k]
    return total / np.maximum(present.sum(axis=-1), 1)


def _counted_binary(y_true, y_pred, counts):
    t, p = y_true.astype(bool), y_pred.astype(bool)
    return counts @ (t & p).astype(float), counts @ (~t & p).astype(float), counts @ (t & ~p).astype(float)


def _counted_precision(y_true, y_pred, counts):
    tp, fp, _ = _counted_binary(y_true, y_pred, counts)
    return np.divide(tp, tp + fp, out=np.zeros(tp.shape), where=tp + fp > 0)


def _counted_recall(y_true, y_pred, counts):
    tp, _, fn = _counted_binary(y_true, y_pred, counts)
    return np.divide(tp, tp + fn, out=np.zeros(tp.shape), where=tp + fn > 0)


def _counted_f1(y_true, y_pred, counts):
    tp, fp, fn = _counted_binary(y_true, y_pred, counts)
    return np.divide(2.0 * tp, 2 * tp + fp + fn, out=np.zeros(tp.shape), where=2 * tp + fp + fn > 0)


def _counted_mean_precision(y_true, score, draws, selected_of):
    """:func:`_mean_precision` of every resample from the draw counts, without sorting a resample.

    A resample sorted by decreasing score is the groups of equal score in their sorted order, each
    repeated as often as its items are drawn, and each group's copies share the precision at the
    group's end. When every group is all selected or all not, the per-position precisions are laid out
    in that order and summed over the same axis as :func:`_mean_precision` sums them, so the values are
    the same bit for bit. Otherwise the order of the tied items inside a resample is the sort's own:
    None is returned, and the caller sorts every resample.
    """
    score = np.asarray(score, dtype=float)
    if not np.isfinite(score).all():
        return None
    n, n_resamples = draws.shape
    order = np.argsort(-score)
    ranked = score[order]
    hits = np.asarray(y_true).astype(bool)[order]
    starts = np.flatnonzero(np.concatenate([[True], ranked[1:] != ranked[:-1]]))
    sizes = np.diff(np.append(starts, n))
    selected = selected_of(hits, ranked)
    if not np.array_equal(selected, np.repeat(selected[starts], sizes)):
        return None
    # Sums of draw counts are sums of whole numbers, so exact. Row g: how often group g is drawn.
    drawn_items = draws[order]
    drawn = drawn_items if starts.size == n else np.add.reduceat(drawn_items, starts, axis=0)
    relevant = np.flatnonzero(hits)
    n_pos = drawn_items[relevant].sum(axis=0)
    chosen = np.flatnonzero(selected[starts])
    if chosen.size == 0:
        return np.where(n_pos > 0, 0.0, np.nan)
    seen = _cumulative_at(drawn, chosen)
    # Relevant draws up to the end of each chosen group; row 0 for a group before the first relevant item.
    relevant_upto = np.zeros((relevant.size + 1, n_resamples))
    np.cumsum(drawn_items[relevant], axis=0, out=relevant_upto[1:])
    relevant_seen = relevant_upto[np.searchsorted(relevant, starts[chosen] + sizes[chosen] - 1, side="right")]
    precision = np.divide(relevant_seen, seen, out=np.zeros_like(seen), where=seen > 0)
    copies = drawn[chosen].astype(np.int64).ravel()
    # A group's copies take the positions just before its end, in its resample's row.
    group_end = (seen.astype(np.int64) + np.arange(n_resamples, dtype=np.int64) * n).ravel()
    first_copy = np.cumsum(copies) - copies
    positions = np.repeat(group_end, copies) - 1 - (np.arange(copies.sum()) - np.repeat(first_copy, copies))
    per_position = np.zeros(n_resamples * n)
    per_position[positions] = np.repeat(precision.ravel(), copies)
    count = drawn[chosen].sum(axis=0)
    mean = np.where(count > 0, per_position.reshape(n_resamples, n).sum(axis=-1) / np.maximum(count, 1), 0.0)
    return np.where(n_pos > 0, mean, np.nan)


def _cumulative_at(rows: np.ndarray, at: np.ndarray) -> np.ndarray:
    """``np.cumsum(rows, axis=0)[at]`` for strictly increasing ``at``, from one pass of segment sums."""
    segments = np.add.reduceat(rows, np.concatenate([[0], at[:-1] + 1]), axis=0)
    # reduceat's last segment runs to the end; the rows after at[-1] are not part of it.
    segments[-1] -= rows[at[-1] + 1:].sum(axis=0)
    return np.cumsum(segments, axis=0)


def _counted_average_precision(y_true, score, draws):
    return _counted_mean_precision(y_true, score, draws, lambda hits, ranked: hits & (ranked > 0))


def _counted_average_precision_ranking(y_true, score, draws):
    return _counted_mean_precision(y_true, score, draws, lambda hits, ranked: hits)


def _counted_precision_at_positive_predictions(y_true, score, draws):
    return _counted_mean_precision(y_true, score, draws, lambda hits, ranked: ranked > 0)


#: metric -> its value on every resample from the draw counts (None when that would not be exact: the
#: ranking metrics then sort every resample, where a tie mixes items they average over with items they do
#: not). The ranking metrics take the counts item-major (:func:`_draws_by_item`), the others resample-major
#: (:func:`_resample_counts`).
COUNTED = {
    "accuracy": _counted_accuracy,
    "macro_f1": _counted_macro_f1,
    "mae": _counted_mae,
    "mae_macro": _counted_mae_macro,
    "precision": _counted_precision,
    "recall": _counted_recall,
    "f1": _counted_f1,
    "average_precision": _counted_average_precision,
    "average_precision_ranking": _counted_average_precision_ranking,
    "precision_at_positive_predictions": _counted_precision_at_positive_predictions,
}


def resampled_metric(metric: str, y_true, ys, *, n_resamples: int, seed: int) -> np.ndarray:
    """The metric on each bootstrap resample of the items, as the mean over the rows of ``ys``.

    Parameters
    ----------
    metric : str
        One of :data:`METRICS`.
    y_true : ndarray of shape (n,)
    ys : ndarray of shape (n_seeds, n)
        Predictions (scores for the ranking metrics) of one system's seeds.
    n_resamples, seed : int
        The resamples: the draws of ``numpy.random.default_rng(seed)`` that
        ``scipy.stats.bootstrap`` makes, shared by every call with the same
        ``n``, ``n_resamples`` and ``seed``.

    Returns
    -------
    ndarray of shape (n_resamples,)
    """
    n = y_true.size
    counted = COUNTED.get(metric)
    if counted is not None:
        counts = (_draws_by_item if METRICS[metric].on_scores else _resample_counts)(n, n_resamples, seed)
        values = [counted(y_true, y, counts) for y in ys]
        if all(v is not None for v in values):
            return np.mean(values, axis=0)
    fn, indices = METRICS[metric][0], _resample_indices(n, n_resamples, seed)
    return np.mean([fn(y_true[indices], y[indices]) for y in ys], axis=0)


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
    if ys.shape[-1] != y_true.size:
        raise ValueError(f"{metric}: {ys.shape[-1]} predictions for {y_true.size} items")
    values = resampled_metric(metric, y_true, ys, n_resamples=n_resamples, seed=seed)
    # scipy.stats.bootstrap's percentile interval of the same resamples, computed as it does (scipy.stats is
    # imported here, not at the top: it takes a second, and planning a run imports this module).
    from scipy import stats

    alpha = np.float64((1.0 - CONFIDENCE) / 2.0)
    low, high = stats.quantile(values, np.stack([alpha, 1 - alpha]), axis=-1)
    return float(low), float(high)


def paired_comparison(
    metric: str, y_true, y_a, y_b, *, n_resamples: int, seed: int, metric_b: str | None = None, resampled=None
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
    resampled : tuple of two ndarray, optional
        :func:`resampled_metric` of ``a`` and of ``b`` with these ``n_resamples`` and ``seed``, from a
        caller that compares a system with several others and computes each system's once; default:
        computed here.

    Returns
    -------
    dict
        ``difference``, ``ci_low``, ``ci_high``, ``p_bootstrap``, ``p_mcnemar``
        (NaN unless accuracy of single runs) and ``n_items``.
    """
    y_true = np.asarray(y_true)
    y_a, y_b = np.atleast_2d(np.asarray(y_a)), np.atleast_2d(np.asarray(y_b))
    fn_a, fn_b = METRICS[metric][0], METRICS[metric_b or metric][0]

    diff = float(np.mean([fn_a(y_true, y) for y in y_a]) - np.mean([fn_b(y_true, y) for y in y_b]))
    if resampled is None:
        draw = functools.partial(resampled_metric, y_true=y_true, n_resamples=n_resamples, seed=seed)
        resampled = (draw(metric, ys=y_a), draw(metric_b or metric, ys=y_b))
    d = np.asarray(resampled[0] - resampled[1], dtype=float)
    d = d[np.isfinite(d)]
    alpha = (1.0 - CONFIDENCE) / 2.0
    low, high = np.quantile(d, [alpha, 1.0 - alpha]) if d.size else (np.nan, np.nan)
    p_boot = min(1.0, 2.0 * min(np.mean(d <= 0), np.mean(d >= 0))) if d.size else float("nan")
    p_mcnemar = float("nan")
    if metric == "accuracy" and metric_b in (None, "accuracy") and len(y_a) == len(y_b) == 1:
        right_a, right_b = y_a[0] == y_true, y_b[0] == y_true
        a_only, b_only = int((right_a & ~right_b).sum()), int((right_b & ~right_a).sum())
        from scipy import stats

        p_mcnemar = 1.0 if a_only + b_only == 0 else float(stats.binomtest(a_only, a_only + b_only, 0.5).pvalue)
    return {
        "difference": diff,
        "ci_low": float(low),
        "ci_high": float(high),
        "p_bootstrap": float(p_boot),
        "p_mcnemar": p_mcnemar,
        "n_items": int(y_true.size),
    }
