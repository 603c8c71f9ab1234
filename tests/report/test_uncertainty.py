"""Bootstrap intervals and paired comparisons: against library values and known cases."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from imblearn.metrics import macro_averaged_mean_absolute_error
from scipy import stats
from sklearn import metrics as skm

from kernbench.metrics import precision_at_positive_predictions, thresholded_average_precision
from kernbench.report.significance import compare_systems
from kernbench.report.tables import build_table, load_paper_values, to_markdown
from kernbench.report.uncertainty import (
    COUNTED,
    METRICS,
    _draws_by_item,
    bootstrap_interval,
    metric_value,
    paired_comparison,
)
from tests.conftest import REPO_ROOT, write_record

LIBRARY = {
    "accuracy": skm.accuracy_score,
    "macro_f1": lambda t, p: skm.f1_score(t, p, average="macro", zero_division=0),
    "mae": skm.mean_absolute_error,
    "mae_macro": macro_averaged_mean_absolute_error,
    "precision": lambda t, p: skm.precision_score(t, p, zero_division=0),
    "recall": lambda t, p: skm.recall_score(t, p, zero_division=0),
    "f1": lambda t, p: skm.f1_score(t, p, zero_division=0),
    "average_precision": thresholded_average_precision,
    "average_precision_ranking": skm.average_precision_score,
    "precision_at_positive_predictions": precision_at_positive_predictions,
}
RANKING = {"average_precision", "average_precision_ranking", "precision_at_positive_predictions"}


@pytest.mark.parametrize("metric", sorted(METRICS))
def test_vectorised_metrics_equal_the_library_on_every_resample(metric):
    rng = np.random.default_rng(1)
    binary = metric in {"precision", "recall", "f1"} | RANKING
    n = 300
    y_true = rng.integers(0, 2, n).astype(bool) if binary else rng.integers(1, 6, n)
    if metric in RANKING:
        y = np.round(y_true + rng.normal(-0.5, 1.0, n), 1)  # decision values with tied scores, some exactly 0
    elif binary:
        y = np.where(rng.random(n) < 0.7, y_true, ~y_true)
    else:
        y = np.clip(y_true + rng.integers(-1, 2, n), 1, 5)
    idx = rng.integers(0, n, size=(25, n))
    batch = METRICS[metric][0](y_true[idx], y[idx])
    expected = [LIBRARY[metric](y_true[i], y[i]) for i in idx]
    np.testing.assert_allclose(batch, expected, rtol=1e-12)
    assert metric_value(metric, y_true, y) == pytest.approx(LIBRARY[metric](y_true, y), rel=1e-12)


def test_accuracy_interval_matches_the_binomial_interval():
    rng = np.random.default_rng(2)
    n, k = 2000, 1400
    y_true = np.zeros(n, dtype=int)
    y_pred = np.r_[np.zeros(k, dtype=int), np.ones(n - k, dtype=int)]
    perm = rng.permutation(n)
    low, high = bootstrap_interval("accuracy", y_true[perm], y_pred[perm], n_resamples=4000, seed=7)
    wilson = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert low == pytest.approx(wilson.low, abs=0.004) and high == pytest.approx(wilson.high, abs=0.004)
    assert (low, high) == bootstrap_interval("accuracy", y_true[perm], y_pred[perm], n_resamples=4000, seed=7)


def test_seed_mean_interval_lies_around_the_seed_mean():
    rng = np.random.default_rng(3)
    y_true = rng.integers(0, 3, 500)
    seeds = np.stack([np.where(rng.random(500) < q, y_true, (y_true + 1) % 3) for q in (0.6, 0.7, 0.8)])
    low, high = bootstrap_interval("accuracy", y_true, seeds, n_resamples=1000, seed=1)
    mean = np.mean([(s == y_true).mean() for s in seeds])
    assert low < mean < high and high - low < 0.1


@pytest.mark.parametrize("metric", ["accuracy", "macro_f1", "mae_macro", "average_precision", "average_precision_ranking"])
def test_a_system_compared_with_itself(metric):
    rng = np.random.default_rng(4)
    y_true = rng.integers(0, 2, 200)
    y = y_true + rng.normal(0, 1, 200) if metric.startswith("average") else rng.integers(0, 2, 200)
    result = paired_comparison(metric, y_true, y, y, n_resamples=500, seed=0)
    assert result["difference"] == 0.0 and result["ci_low"] == 0.0 and result["ci_high"] == 0.0
    assert result["p_bootstrap"] == 1.0
    if metric == "accuracy":
        assert result["p_mcnemar"] == 1.0


def test_a_clearly_better_system_is_significant_and_mcnemar_is_the_exact_test():
    rng = np.random.default_rng(5)
    y_true = rng.integers(0, 2, 1000)
    good = np.where(rng.random(1000) < 0.9, y_true, 1 - y_true)
    bad = np.where(rng.random(1000) < 0.6, y_true, 1 - y_true)
    result = paired_comparison("accuracy", y_true, good, bad, n_resamples=1000, seed=0)
    assert result["difference"] == pytest.approx((good == y_true).mean() - (bad == y_true).mean())
    assert 0 < result["ci_low"] < result["difference"] < result["ci_high"]
    assert result["p_bootstrap"] < 0.01
    a_only = int(((good == y_true) & (bad != y_true)).sum())
    b_only = int(((bad == y_true) & (good != y_true)).sum())
    assert result["p_mcnemar"] == pytest.approx(stats.binomtest(a_only, a_only + b_only).pvalue)


def _record(tmp_path, system, y_true, y_pred, *, paper="anygram", dataset="sst", seed=1):
    preds = pd.DataFrame({"id": [f"t-{i}" for i in range(len(y_true))], "split": "test",
                          "y_true": y_true, "y_pred": y_pred})
    ppath = tmp_path / f"{system}-{seed}.predictions.parquet"
    preds.to_parquet(ppath, index=False)
    rows = [{"dataset": dataset, "split": "test", "metric": "accuracy", "value": float((y_true == y_pred).mean())}]
    return write_record(tmp_path / f"{system}-{seed}.json", paper=paper, dataset=dataset, system=system, rows=rows,
                        key_params={"seed": seed}, predictions=ppath)


def test_tables_and_significance_from_records(tmp_path):
    rng = np.random.default_rng(6)
    y_true = rng.integers(0, 5, 400)
    noisy = lambda q: np.where(rng.random(400) < q, y_true, rng.integers(0, 5, 400))  # noqa: E731
    records = [_record(tmp_path, "AGKsm", y_true, noisy(0.5)),
               _record(tmp_path, "BiLSTM", y_true, noisy(0.45), seed=1),
               _record(tmp_path, "BiLSTM", y_true, noisy(0.45), seed=2)]
    table = build_table(records, load_paper_values(REPO_ROOT / "workflow/paper_results.yaml"), resamples=300, seed=3)
    for row in table.itertuples():
        assert row.ci_low < row.value < row.ci_high
    assert table.set_index("system").loc["BiLSTM", "n_seeds"] == 2
    assert "95% CI" in to_markdown(table) and "[" in to_markdown(table)
    again = build_table(records, load_paper_values(REPO_ROOT / "workflow/paper_results.yaml"), resamples=300, seed=3)
    pd.testing.assert_frame_equal(table, again)

    sig = compare_systems(records, levels=[0.1], resamples=300, seed=3)
    assert len(sig) == 1
    row = sig.iloc[0]
    assert (row.system_a, row.system_b, row.metric) == ("AGKsm", "BiLSTM", "accuracy")
    assert row.ci_low < row.difference < row.ci_high and 0 <= row.p_bootstrap <= 1
    assert np.isnan(row.p_mcnemar)  # BiLSTM has two seeds


@pytest.mark.parametrize("dtype", [np.int64, np.float64])
def test_mae_macro_with_a_rare_class_and_gaps_in_the_labels(dtype):
    rng = np.random.default_rng(8)
    y_true = np.r_[rng.choice([1, 5], 59), 3].astype(dtype)  # class 3 once: absent from many resamples
    y_pred = np.clip(y_true + rng.integers(-2, 3, 60), 1, 5).astype(dtype)
    idx = rng.integers(0, 60, size=(40, 60))
    assert len({len(np.unique(y_true[i])) for i in idx}) == 2
    batch = METRICS["mae_macro"][0](y_true[idx], y_pred[idx])
    # imbalanced-learn refuses a resample whose predictions hold a class its truth lacks; MAE^M is the
    # mean over the classes of the truth of their mean absolute error.
    expected = [
        np.mean([skm.mean_absolute_error(y_true[i][y_true[i] == c], y_pred[i][y_true[i] == c]) for c in np.unique(y_true[i])])
        for i in idx
    ]
    np.testing.assert_allclose(batch, expected, rtol=1e-12)


def _ordinal_record(tmp_path, name, system, y_true, y_pred, xi):
    """A run record on a review set; ``xi`` a column of levels (NaN: none), or absent for the baselines table."""
    table = "ordinal" if xi is not None else "baselines"
    ids = [f"r-{i % 300}" for i in range(len(y_true))]  # the same 300 test reviews at every level
    preds = pd.DataFrame({"id": ids, "y_true": y_true, "y_pred": y_pred})
    if xi is not None:
        preds.insert(1, "xi", xi)
    ppath = tmp_path / f"{name}.predictions.parquet"
    preds.to_parquet(ppath, index=False)
    rows = [{"dataset": "reviews_hotel", "split": "test", "metric": "mae_macro",
             "value": float(macro_averaged_mean_absolute_error(y_true, y_pred))}]
    return write_record(tmp_path / f"{name}.json", paper="ordinal", dataset="reviews_hotel", system=system, rows=rows,
                        key_params={"name": name}, params={}, predictions=ppath, table=table)


def test_ordinal_methods_are_compared_with_figure_1_triv_and_ffs(tmp_path):
    rng = np.random.default_rng(9)
    y_true = rng.choice([1, 2, 3, 4, 5], size=300, p=[0.05, 0.1, 0.1, 0.3, 0.45])
    near = lambda: np.clip(y_true + rng.integers(-1, 2, 300), 1, 5)  # noqa: E731
    method = pd.concat([pd.Series(near()), pd.Series(near())], ignore_index=True).to_numpy()
    records = [
        # The baselines table's Triv on the same set: the majority class (5 stars), no level column.
        _ordinal_record(tmp_path, "baselines-triv", "Triv", y_true, np.full(300, 5), None),
        # Figure 1's Triv: every review 3 stars, no level (NaN).
        _ordinal_record(tmp_path, "triv", "Triv", y_true, np.full(300, 3), np.nan),
        _ordinal_record(tmp_path, "ffs", "FFS", y_true, near(), 1.0),
        _ordinal_record(tmp_path, "var_idf", "Var*IDF", np.r_[y_true, y_true], method, np.repeat([0.1, 0.3], 300)),
    ]
    sig = compare_systems(records, levels=[0.1, 0.3], resamples=200, seed=0)
    assert sorted(zip(sig["xi"], sig["system_a"], sig["system_b"])) == [
        (0.1, "Var*IDF", "FFS"), (0.1, "Var*IDF", "Triv"), (0.3, "Var*IDF", "FFS"), (0.3, "Var*IDF", "Triv")
    ]
    triv = sig[sig["system_b"] == "Triv"]
    # MAE^M of "every review 3 stars" is (2 + 1 + 0 + 1 + 2) / 5 whatever the class sizes.
    np.testing.assert_allclose(triv["value_b"], 1.2)
    ffs = sig[sig["system_b"] == "FFS"]
    ffs_value = macro_averaged_mean_absolute_error(y_true, pd.read_parquet(tmp_path / "ffs.predictions.parquet")["y_pred"])
    np.testing.assert_allclose(ffs["value_b"], ffs_value)
    np.testing.assert_allclose(
        sig.set_index(["xi", "system_b"]).loc[(0.3, "Triv"), "value_a"],
        macro_averaged_mean_absolute_error(y_true, method[300:]),
    )


def test_fisher_systems_are_compared_on_both_average_precisions(tmp_path):
    rng = np.random.default_rng(9)
    y_true = rng.random(300) < 0.3
    paths = []
    for system, noise in (("BoW-TFIDF", 0.5), ("FSA-ln", 1.0)):
        score = y_true - 0.5 + rng.normal(0, noise, 300)
        preds = pd.DataFrame({"id": [f"d-{i}" for i in range(300)], "split": "test", "category": "earn",
                              "y_true": y_true, "score": score, "y_pred": score > 0})
        ppath = tmp_path / f"{system}.parquet"
        preds.to_parquet(ppath, index=False)
        paths.append(write_record(tmp_path / f"{system}.json", paper="fisher", dataset="reuters", system=system,
                                  rows=[], predictions=ppath))
    sig = compare_systems(paths, levels=[0.1], resamples=200, seed=1).set_index("metric")
    assert sorted(sig.index) == ["average_precision", "average_precision_ranking"]
    assert (sig["dataset"] == "earn").all()
    a = pd.read_parquet(tmp_path / "BoW-TFIDF.parquet")
    assert sig.loc["average_precision", "value_a"] == pytest.approx(thresholded_average_precision(a.y_true, a.score))
    assert sig.loc["average_precision_ranking", "value_a"] == pytest.approx(skm.average_precision_score(a.y_true, a.score))


def test_each_system_resampled_once_per_cell_gives_every_pair_as_compared_alone(tmp_path):
    # Three systems share a cell: each is in two pairs, and its resampled metric is computed once.
    rng = np.random.default_rng(5)
    y_true = rng.random(250) < 0.3
    paths, scores = [], {}
    for system, noise in (("BoW-TFIDF", 0.5), ("FSA-ln", 1.0), ("ngram-ln", 0.8)):
        scores[system] = y_true - 0.5 + rng.normal(0, noise, 250)
        preds = pd.DataFrame({"id": [f"d-{i:03d}" for i in range(250)], "split": "test", "category": "earn",
                              "y_true": y_true, "score": scores[system], "y_pred": scores[system] > 0})
        preds.to_parquet(tmp_path / f"{system}.parquet", index=False)
        paths.append(write_record(tmp_path / f"{system}.json", paper="fisher", dataset="reuters", system=system,
                                  rows=[], predictions=tmp_path / f"{system}.parquet"))
    sig = compare_systems(paths, levels=[0.1], resamples=150, seed=2)
    assert len(sig) == 3 * 2  # three pairs, two metrics
    for row in sig.itertuples():
        alone = paired_comparison(row.metric, y_true, scores[row.system_a], scores[row.system_b], n_resamples=150, seed=2)
        assert {k: getattr(row, k) for k in ("difference", "ci_low", "ci_high", "p_bootstrap")} == {
            k: alone[k] for k in ("difference", "ci_low", "ci_high", "p_bootstrap")
        }


def _scipy_interval(metric, y_true, ys, *, n_resamples, seed):
    """The interval as scipy.stats.bootstrap computes it, resampling the items of every seed together."""
    fn = METRICS[metric][0]

    def statistic(*samples, axis=-1):
        return np.mean([fn(samples[0], p) for p in samples[1:]], axis=0)

    res = stats.bootstrap((y_true, *ys), statistic, paired=True, vectorized=True, n_resamples=n_resamples,
                          confidence_level=0.95, method="percentile", random_state=np.random.default_rng(seed))
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def _samples(metric, kind, rng, n):
    if metric in RANKING:
        return _ranking_samples(kind, rng, n)
    if metric in {"precision", "recall", "f1"}:
        return rng.random(n) < 0.3, rng.random((2, n)) < 0.4
    if kind == "stars":
        y_true = rng.integers(1, 6, n)
        return y_true, np.clip(y_true + rng.integers(-2, 3, (3, n)), 1, 5)
    if kind == "wide":  # integer labels too far apart for MAE^M's bincount path
        return rng.integers(0, 90, n), rng.integers(0, 90, (2, n))
    if kind == "fractional":  # non-integer predictions: MAE and MAE^M resample item by item
        return rng.integers(1, 6, n).astype(float), rng.uniform(1, 5, (2, n))
    labels = np.array(["negative", "neutral", "positive", "conflict"])
    return labels[rng.integers(0, 4, n)], labels[rng.integers(0, 4, (2, n))]


def _ranking_samples(kind, rng, n):
    y_true = rng.random(n) < 0.3
    if kind == "stars":  # decision values rounded to 0.1: ties of relevant and irrelevant items
        return y_true, np.round(rng.normal(0, 1, (2, n)), 1)
    scores = rng.normal(0, 1, (2, n))
    if kind == "fractional":  # duplicated items: ties, each of one relevance and one score
        source, copy = rng.choice(n, size=(2, n // 10), replace=False)
        y_true[copy], scores[:, copy] = y_true[source], scores[:, source]
    return y_true, scores  # "wide", "strings": every score distinct


@pytest.mark.parametrize(("kind", "counted"), [("wide", True), ("fractional", True), ("stars", False)])
@pytest.mark.parametrize("metric", sorted(RANKING))
def test_ranking_metrics_take_the_draw_counts_unless_a_tie_mixes_selected_and_not(metric, kind, counted):
    rng = np.random.default_rng(5)
    y_true, ys = _ranking_samples(kind, rng, 257)
    draws = _draws_by_item(y_true.size, 300, 3)
    values = COUNTED[metric](y_true, ys[0], draws)
    if metric == "precision_at_positive_predictions" and kind == "stars":
        counted = True  # its selection (score > 0) is the same for every member of a tie
    assert (values is not None) == counted
    if counted:
        idx = np.random.default_rng(3).integers(0, y_true.size, size=(300, y_true.size))
        assert np.array_equal(values, METRICS[metric][0](y_true[idx], ys[0][idx]), equal_nan=True)


@pytest.mark.parametrize(("metric", "kind"), [
    (m, k) for m in sorted(METRICS) for k in ("stars", "wide", "fractional", "strings")
    if not (k == "strings" and m.startswith("mae"))  # MAE needs numeric labels
])
def test_intervals_and_comparisons_repeat_the_item_by_item_bootstrap_bit_for_bit(metric, kind):
    rng = np.random.default_rng(12)
    y_true, ys = _samples(metric, kind, rng, 257)
    for n_resamples, seed in ((300, 3), (299, 4), (300, 3)):  # the third reuses the first's cached resamples
        assert bootstrap_interval(metric, y_true, ys, n_resamples=n_resamples, seed=seed) == _scipy_interval(
            metric, y_true, ys, n_resamples=n_resamples, seed=seed
        )
        idx = np.random.default_rng(seed).integers(0, y_true.size, size=(n_resamples, y_true.size))
        fn = METRICS[metric][0]
        d = np.mean([fn(y_true[idx], y[idx]) for y in ys[:1]], axis=0) - fn(y_true[idx], ys[-1][idx])
        d = d[np.isfinite(d)]
        result = paired_comparison(metric, y_true, ys[:1], ys[-1], n_resamples=n_resamples, seed=seed)
        alpha = (1.0 - 0.95) / 2.0
        assert [result["ci_low"], result["ci_high"]] == list(np.quantile(d, [alpha, 1.0 - alpha]))
        assert result["p_bootstrap"] == min(1.0, 2.0 * min(np.mean(d <= 0), np.mean(d >= 0)))


def test_significance_per_paper_parts_merge_into_the_one_job_table_byte_for_byte(tmp_path):
    from kernbench.cli import main

    rng = np.random.default_rng(13)
    y_true = rng.integers(0, 3, 200)
    records = [_record(tmp_path, s, y_true, np.where(rng.random(200) < q, y_true, 2 - y_true), seed=k)
               for k, (s, q) in enumerate((("AGKsm", 0.6), ("AGKwess", 0.7), ("BiLSTM", 0.65), ("BiLSTM", 0.66)))]
    stars = rng.choice([1, 2, 3, 4, 5], size=300)
    near = lambda: np.clip(stars + rng.integers(-1, 2, 300), 1, 5)  # noqa: E731
    records += [_ordinal_record(tmp_path, "triv", "Triv", stars, np.full(300, 3), np.nan),
                _ordinal_record(tmp_path, "ffs", "FFS", stars, near(), 1.0),
                _ordinal_record(tmp_path, "var", "Var", np.r_[stars, stars], np.r_[near(), near()],
                                np.repeat([0.1, 0.30000000000000004], 300))]
    common = ["--records", *map(str, records), "--levels", "[0.1, 0.3]", "--resamples", "150", "--seed", "5"]
    main(["significance", *common, "--out", str(tmp_path / "whole.csv")])
    parts = []
    for paper in ("ordinal", "fisher", "anygram"):  # any order: the merge sorts by paper
        parts.append(str(tmp_path / f"{paper}.json"))
        main(["significance", *common, "--paper", paper, "--out", parts[-1]])
    main(["significance-merge", "--parts", *parts, "--out", str(tmp_path / "merged.csv")])
    whole = (tmp_path / "whole.csv").read_bytes()
    assert (tmp_path / "merged.csv").read_bytes() == whole
    table = pd.read_csv(tmp_path / "whole.csv")
    assert table["paper"].tolist() == ["anygram"] * 3 + ["ordinal"] * 4
    assert json.loads((tmp_path / "fisher.json").read_text()) == {"paper": "fisher", "rows": []}


def test_significance_merge_refuses_a_repeated_paper_and_a_foreign_file(tmp_path, capsys):
    from kernbench.cli import main

    part = tmp_path / "anygram.json"
    part.write_text(json.dumps({"paper": "anygram", "rows": []}))
    assert main(["significance-merge", "--parts", str(part), str(part), "--out", str(tmp_path / "a.csv")]) == 1
    assert "repeat a paper: ['anygram', 'anygram']" in capsys.readouterr().err
    other = tmp_path / "other.json"
    other.write_text("[1, 2]")
    assert main(["significance-merge", "--parts", str(other), "--out", str(tmp_path / "b.csv")]) == 1
    assert f"{other}: not a significance part" in capsys.readouterr().err
    assert not (tmp_path / "a.csv").exists() and not (tmp_path / "b.csv").exists()
