"""The paper's claims about Figure 1, checked with paired tests on the reproduced test predictions.

1. "the four novel techniques proposed here are dramatically superior to the
   four baselines": Var, RR(Var), PRP and Triv ("We compare our methods with
   the three baselines mentioned at the end of Section 1 and with the 'trivial
   baseline' that consists in scoring all test documents as 3 stars"); no
   range is named, so every level of Figure 1 (``xi in [0.001, 1.0]``).
2. "our four techniques are fairly stable across xi in [0.05, 1.0]".
3. "for xi in [0.01, 0.3] the proposed techniques even outperform the full
   feature set" (FFS).
4. "This is in stark contrast with the instability of the baselines": the
   rule of (2) applied to Var, RR(Var) and PRP, expecting them unstable (Triv
   has no levels to be unstable across).

A curve lying below another at one level out of thirty is no evidence: the
answers rest on :func:`kernbench.report.uncertainty.paired_comparison` (paired
bootstrap over the test reviews, two-sided p-value) at every level of a
claim's range, by the rules of :func:`evaluate_claims` (also in
:func:`rules_text`, which the claims table prints).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from kernbench.papers.ordinal import BASELINE_METHODS, NEW_METHODS, TRIVIAL_RANK
from kernbench.records import load_record
from kernbench.report.uncertainty import metric_value, paired_comparison, resampled_metric

COLUMNS = ["dataset", "claim", "statement", "answer", "evidence"]
METRIC = "mae_macro"
#: The four baselines of claim (i): the three earlier feature scoring functions and Triv (every review 3 stars).
CLAIM_BASELINES = (*BASELINE_METHODS, "Triv")


def curves_from_records(record_paths) -> pd.DataFrame:
    """Test MAE^M of every record row: columns ``dataset, system, xi, value`` (``xi`` blank for Triv)."""
    rows = []
    for path in record_paths:
        record = load_record(path)
        for row in record["rows"]:
            if row["split"] == "test" and row["metric"] == "mae_macro":
                rows.append(
                    {
                        "dataset": row["dataset"],
                        "system": record["system"],
                        "xi": row.get("xi", np.nan),
                        "value": row["value"],
                    }
                )
    frame = pd.DataFrame(rows, columns=["dataset", "system", "xi", "value"])
    return frame.sort_values(["dataset", "system", "xi"], kind="stable").reset_index(drop=True)


def items_from_records(record_paths) -> pd.DataFrame:
    """Test predictions of every record: columns ``dataset, system, xi, id, y_true, y_pred``.

    Raises
    ------
    ValueError
        If a record has no predictions file or the file lacks a column.
    """
    frames, keys = [], []
    for path in record_paths:
        record = load_record(path)
        if not record.get("predictions"):
            raise ValueError(f"{path}: the record names no predictions file; the claims need the test predictions")
        items = pd.read_parquet(record["predictions"])
        missing = {"id", "xi", "y_true", "y_pred"} - set(items.columns)
        if missing:
            raise ValueError(f"{record['predictions']}: lacks column(s) {sorted(missing)}")
        frames.append(items[["xi", "id", "y_true", "y_pred"]])
        keys.append((record["dataset"], record["system"]))
    columns = ["dataset", "system", "xi", "id", "y_true", "y_pred"]
    if not frames:
        return pd.DataFrame(columns=columns)
    items = pd.concat(frames, ignore_index=True)
    sizes = [len(frame) for frame in frames]
    # A record's name columns as categoricals: millions of rows (every level of every method) share a few names.
    for position, column in enumerate(("dataset", "system")):
        names = sorted({key[position] for key in keys})
        codes = np.repeat([names.index(key[position]) for key in keys], sizes)
        items.insert(position, column, pd.Categorical.from_codes(codes, categories=names))
    return items


class _Levels:
    """The test predictions of one dataset, by system and level, aligned on the review ids."""

    def __init__(self, items: pd.DataFrame, *, resamples: int, seed: int):
        self.ids = np.sort(items["id"].unique())
        self.curves: dict[str, dict[float, np.ndarray]] = {}
        self._resampling = {"n_resamples": resamples, "seed": seed}
        self._resampled: dict[tuple[str, float], np.ndarray] = {}
        truth = None
        for (system, xi), part in items.groupby(["system", items["xi"].fillna(-1.0)], sort=True, observed=True):
            part = part.set_index("id").reindex(self.ids)
            if part["y_pred"].isna().any():
                raise ValueError(f"{system} at xi={xi:g} lacks predictions for some test reviews")
            truth = part["y_true"].to_numpy() if truth is None else truth
            self.curves.setdefault(str(system), {})[float(xi)] = part["y_pred"].to_numpy()
        self.truth = truth

    def levels(self, system: str, bounds) -> list[float]:
        low, high = bounds
        return [x for x in sorted(self.curves.get(system, {})) if low - 1e-9 <= x <= high + 1e-9]

    def value(self, system: str, xi: float) -> float:
        return metric_value(METRIC, self.truth, self.curves[system][xi])

    def single(self, system: str) -> float | None:
        """The level key of a system's one curve point (None unless it has exactly one): FFS, Triv."""
        levels = self.curves.get(system, {})
        return next(iter(levels)) if len(levels) == 1 else None

    def ffs(self) -> float | None:
        """The level of FFS's one curve point (None unless it has exactly one)."""
        return self.single("FFS")

    def baseline_point(self, system: str, xi: float) -> float | None:
        """The level of ``system`` compared with a new method at ``xi``: ``xi`` itself, Triv's one point."""
        if system == "Triv":
            return self.single("Triv")
        return xi if xi in self.curves.get(system, {}) else None

    def compare(self, a: tuple[str, float], b: tuple[str, float]) -> dict:
        """:func:`kernbench.report.uncertainty.paired_comparison` of ``(system, xi)`` a and b.

        Each curve point's metric on the resamples is computed once, however many comparisons it is in.
        """
        for key in (a, b):
            if key not in self._resampled:
                ys = self.curves[key[0]][key[1]][np.newaxis, :]
                self._resampled[key] = resampled_metric(METRIC, self.truth, ys, **self._resampling)
        return paired_comparison(
            METRIC, self.truth, self.curves[a[0]][a[1]], self.curves[b[0]][b[1]], **self._resampling,
            resampled=(self._resampled[a], self._resampled[b]),
        )


def _fmt(value: float) -> str:
    return f"{value:.4f}"


def _lower(result: dict, alpha: float, margin: float = 0.0) -> bool:
    """Whether system a is significantly lower (better MAE^M) than b by more than ``margin``."""
    return result["difference"] < -margin and result["p_bootstrap"] < alpha


def _answer(shares: dict, yes: float, partly: float) -> str:
    if not shares:
        return "n/a"
    if min(shares.values()) >= yes:
        return "yes"
    return "partly" if max(shares.values()) >= partly else "no"


def _superior_shares(data: _Levels, new, base, window, alpha: float) -> dict:
    """Each (new method, baseline) pair's share of the levels in ``window`` where the new method is lower."""
    shares = {}
    for n in new:
        for b in base:
            pairs = [(x, data.baseline_point(b, x)) for x in data.levels(n, window)]
            wins = [_lower(data.compare((n, x), (b, y)), alpha) for x, y in pairs if y is not None]
            shares[(n, b)] = float(np.mean(wins)) if wins else 0.0
    return shares


def _claim_superior(data: _Levels, s: dict) -> tuple[str, str]:
    window = s["superior_range"]
    new = [m for m in NEW_METHODS if data.levels(m, window)]
    base = [m for m in BASELINE_METHODS if data.levels(m, window)]
    base += ["Triv"] if data.single("Triv") is not None else []
    if not new or not base:
        return "n/a", "no levels of the new methods and baselines in the range"
    means = {m: float(np.mean([data.value(m, x) for x in data.levels(m, window)])) for m in new}
    means.update({m: float(np.mean([data.value(m, x) for x in data.levels(m, window)])) for m in base if m != "Triv"})
    if "Triv" in base:
        means["Triv"] = data.value("Triv", data.single("Triv"))
    shares = _superior_shares(data, new, base, window, s["alpha"])
    worst_pair, worst = min(shares.items(), key=lambda item: (item[1], item[0]))
    best_pair, best = max(shares.items(), key=lambda item: (item[1], item[0]))
    evidence = (
        f"{len(data.levels(new[0], window))} levels; mean MAE^M, new: "
        + ", ".join(f"{m} {_fmt(means[m])}" for m in new)
        + "; baselines: "
        + ", ".join(f"{m} {_fmt(means[m])}" for m in base)
        + f"; significantly lower (p < {s['alpha']:g}) at: weakest pair {worst_pair[0]} vs {worst_pair[1]} "
        f"{worst:.0%} of the levels, strongest {best_pair[0]} vs {best_pair[1]} {best:.0%}, "
        f"all pairs {np.mean(list(shares.values())):.0%}"
    )
    stable = tuple(s["stable_range"])
    if stable != tuple(window):
        # The other reading of the range: only where (ii) says the new methods are stable.
        other = _superior_shares(data, new, base, stable, s["alpha"])
        weakest, share = min(other.items(), key=lambda item: (item[1], item[0]))
        evidence += (
            f"; over xi in [{stable[0]:g}, {stable[1]:g}] (the range of (ii)): "
            f"{_answer(other, s['yes_share'], s['partly_share'])}, weakest pair {weakest[0]} vs {weakest[1]} "
            f"{share:.0%}"
        )
    return _answer(shares, s["yes_share"], s["partly_share"]), evidence


def _stability(data: _Levels, methods, s: dict) -> tuple[dict, list[str]]:
    """Each method's share of levels in ``stable_range`` free of departures, and the evidence parts.

    A level *departs* when it is significantly worse than the method's own best level in the range by more
    than ``stability_tolerance``.
    """
    shares, parts = {}, []
    for m in methods:
        levels = data.levels(m, s["stable_range"])
        values = {x: data.value(m, x) for x in levels}
        best = min(levels, key=lambda x: (values[x], x))
        departures = [
            x for x in levels
            if _lower(data.compare((m, best), (m, x)), s["alpha"], s["stability_tolerance"])
        ]
        shares[m] = 1.0 - len(departures) / len(levels)
        spread = max(values.values()) - min(values.values())
        parts.append(f"{m} spread {_fmt(spread)}, departures at {len(departures)}/{len(levels)} levels")
    return shares, parts


def _claim_stable(data: _Levels, s: dict) -> tuple[str, str]:
    new = [m for m in NEW_METHODS if data.levels(m, s["stable_range"])]
    if not new:
        return "n/a", "no levels of the new methods in the range"
    shares, parts = _stability(data, new, s)
    stable = [m for m in new if shares[m] >= s["stable_share"]]
    answer = "yes" if len(stable) == len(new) else ("partly" if stable else "no")
    return answer, "; ".join(parts)


def _claim_baselines_unstable(data: _Levels, s: dict) -> tuple[str, str]:
    base = [m for m in BASELINE_METHODS if data.levels(m, s["stable_range"])]
    if not base:
        return "n/a", "no levels of the baselines in the range"
    shares, parts = _stability(data, base, s)
    unstable = [m for m in base if shares[m] < s["stable_share"]]
    answer = "yes" if len(unstable) == len(base) else ("partly" if unstable else "no")
    return answer, "; ".join(parts)


def _claim_beats_ffs(data: _Levels, s: dict) -> tuple[str, str]:
    ffs = data.ffs()
    new = [m for m in NEW_METHODS if data.levels(m, s["ffs_range"])]
    if ffs is None or not new:
        return "n/a", "FFS or the new methods missing in the range"
    reference = data.value("FFS", ffs)
    shares, parts = {}, []
    for m in new:
        levels = data.levels(m, s["ffs_range"])
        wins = [_lower(data.compare((m, x), ("FFS", ffs)), s["alpha"]) for x in levels]
        shares[m] = float(np.mean(wins))
        best_xi = min(levels, key=lambda x: (data.value(m, x), x))
        best = data.value(m, best_xi)
        below = sum(data.value(m, x) < reference for x in levels)
        parts.append(
            f"{m} best {_fmt(best)} at xi={best_xi:g} ({(reference - best) / reference:+.1%} vs FFS), "
            f"below FFS at {below}/{len(levels)} levels, significantly at {sum(wins)}"
        )
    return _answer(shares, s["yes_share"], s["partly_share"]), f"FFS {_fmt(reference)}; " + "; ".join(parts)


def rules_text(
    *, alpha: float, yes_share: float, partly_share: float, stable_share: float, stability_tolerance: float, **_
) -> str:
    """The rules behind the answers, in words (the claims table's caption)."""
    return (
        f"Each comparison is a paired bootstrap on the test reviews at one reduction level (MAE^M, two-sided "
        f"p < {alpha:g} in the claimed direction). (i) yes: every (new method, baseline) pair is significantly "
        f"lower at >= {yes_share:.0%} of the levels in the range; partly: some pair at >= {partly_share:.0%}; "
        f"else no; its evidence also answers it over the range of (ii). (ii) a level departs when it is "
        f"significantly worse than the method's own best level in the range by more than {stability_tolerance:g}; "
        f"yes: every new method is free of departures at "
        f">= {stable_share:.0%} of the levels; partly: some are; else no. (iii) yes: every new method is "
        f"significantly below FFS at >= {yes_share:.0%} of the levels in the range; partly: some method at "
        f">= {partly_share:.0%}; else no. (iv) the rule of (ii) applied to Var, RR(Var) and PRP: yes: every "
        f"baseline departs at more than {1 - stable_share:.0%} of the levels (is unstable); partly: some does; "
        f"else no. Triv, every review {TRIVIAL_RANK} stars, is compared at every level with its one value."
    )


def evaluate_claims(
    items: pd.DataFrame,
    *,
    resamples: int,
    seed: int,
    superior_range=(0.001, 1.0),
    stable_range=(0.05, 1.0),
    stability_tolerance: float = 0.1,
    ffs_range=(0.01, 0.3),
    alpha: float = 0.05,
    yes_share: float = 0.5,
    partly_share: float = 0.2,
    stable_share: float = 0.9,
) -> pd.DataFrame:
    """Answer the four claims for every dataset, from paired comparisons at every level.

    Rules (``p``: two-sided paired-bootstrap p-value of the MAE^M difference
    on the test reviews at one level, counted only in the claimed direction):

    (i) a (new method, baseline) pair's share is the fraction of the levels in
    ``superior_range`` at which the new method is lower with ``p < alpha``;
    the baselines are :data:`CLAIM_BASELINES`, Triv's one value standing at
    every level; ``yes`` if every pair's share is at least ``yes_share``,
    ``partly`` if some pair's is at least ``partly_share``, else ``no``.
    (ii) a level of a new method *departs* if it is worse than the method's
    best level in ``stable_range`` by more than ``stability_tolerance`` with
    ``p < alpha``; ``yes`` if every new method is free of departures at no
    fewer than ``stable_share`` of the levels, ``partly`` if some are, else ``no``.
    (iii) as (i), each new method against FFS over ``ffs_range``.
    (iv) the departures of (ii) for each baseline with levels (Var, RR(Var),
    PRP); a baseline is *unstable* if its departure-free share is below
    ``stable_share``; ``yes`` if every baseline is, ``partly`` if some is,
    else ``no``.

    Parameters
    ----------
    items : pandas.DataFrame
        From :func:`items_from_records`.
    resamples, seed : int
        Bootstrap resamples and seed of every comparison.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`COLUMNS`, one row per dataset and claim.
    """
    settings = {
        "superior_range": superior_range, "stable_range": stable_range,
        "stability_tolerance": stability_tolerance, "ffs_range": ffs_range, "alpha": alpha,
        "yes_share": yes_share, "partly_share": partly_share, "stable_share": stable_share,
    }
    statements = [
        (
            "i",
            f"the four new methods beat the four baselines (Var, RR(Var), PRP, Triv) over xi in "
            f"[{superior_range[0]:g}, {superior_range[1]:g}]",
            _claim_superior,
        ),
        ("ii", f"the four new methods are stable over xi in [{stable_range[0]:g}, {stable_range[1]:g}]", _claim_stable),
        ("iii", f"the new methods beat FFS in xi in [{ffs_range[0]:g}, {ffs_range[1]:g}]", _claim_beats_ffs),
        (
            "iv",
            f"the baselines Var, RR(Var), PRP are unstable over xi in [{stable_range[0]:g}, {stable_range[1]:g}]",
            _claim_baselines_unstable,
        ),
    ]
    rows = []
    for dataset, part in items.groupby("dataset", sort=True, observed=True):
        data = _Levels(part, resamples=resamples, seed=seed)
        for claim, statement, check in statements:
            answer, evidence = check(data, settings)
            rows.append(
                {"dataset": dataset, "claim": claim, "statement": statement, "answer": answer, "evidence": evidence}
            )
    return pd.DataFrame(rows, columns=COLUMNS)
