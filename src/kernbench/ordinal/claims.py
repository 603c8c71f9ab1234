"""The paper's three claims about Figure 1, checked against the reproduced curves.

1. The four new methods are superior to the three baselines (Var, RR(Var),
   PRP) over ``xi in [0.05, 1.0]``.
2. The four new methods are fairly stable across ``xi in [0.05, 1.0]``.
3. For ``xi in [0.01, 0.3]`` the new methods even outperform the full
   feature set (FFS).

Each answer is ``yes``, ``partly`` or ``no`` by the rule written in
:func:`evaluate_claims`, with the numbers it rests on.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from kernbench.ordinal import BASELINE_METHODS, NEW_METHODS
from kernbench.records import load_record

COLUMNS = ["dataset", "claim", "statement", "answer", "evidence"]


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


def _in_range(frame: pd.DataFrame, bounds) -> pd.DataFrame:
    """Rows of the selection methods (not FFS, not Triv) at levels within ``bounds``."""
    low, high = bounds
    methods = frame["system"].isin([*NEW_METHODS, *BASELINE_METHODS])
    return frame[methods & (frame["xi"] >= low - 1e-9) & (frame["xi"] <= high + 1e-9)]


def _fmt(value: float) -> str:
    return f"{value:.4f}"


def _claim_superior(curves: pd.DataFrame, bounds, win_fraction: float) -> tuple[str, str]:
    table = _in_range(curves, bounds).pivot(index="xi", columns="system", values="value")
    new = [m for m in NEW_METHODS if m in table]
    base = [m for m in BASELINE_METHODS if m in table]
    if not new or not base or table.empty:
        return "n/a", "no levels of the new methods and baselines in the range"
    wins = {(n, b): float((table[n] < table[b]).mean()) for n in new for b in base}
    worst_pair, worst = min(wins.items(), key=lambda item: (item[1], item[0]))
    pooled = float(np.mean(list(wins.values())))
    answer = "yes" if worst >= win_fraction else ("partly" if pooled >= 0.5 else "no")
    means = table.mean()
    evidence = (
        f"{len(table)} levels; mean MAE^M, new: "
        + ", ".join(f"{m} {_fmt(means[m])}" for m in new)
        + "; baselines: "
        + ", ".join(f"{m} {_fmt(means[m])}" for m in base)
        + f"; the weakest pair, {worst_pair[0]} vs {worst_pair[1]}, wins at {worst:.0%} of the levels; "
        f"all pairs together {pooled:.0%} "
        f"(yes needs >= {win_fraction:.0%} for every pair, partly >= 50% overall)"
    )
    return answer, evidence


def _claim_stable(curves: pd.DataFrame, bounds, tolerance: float) -> tuple[str, str]:
    table = _in_range(curves, bounds).pivot(index="xi", columns="system", values="value")
    new = [m for m in NEW_METHODS if m in table]
    if not new or table.empty:
        return "n/a", "no levels of the new methods in the range"
    spread = table.max() - table.min()
    stable = [m for m in new if spread[m] <= tolerance]
    answer = "yes" if len(stable) == len(new) else ("partly" if stable else "no")
    base = [m for m in BASELINE_METHODS if m in table]
    evidence = (
        "max - min MAE^M over the range, new: "
        + ", ".join(f"{m} {_fmt(spread[m])}" for m in new)
        + ("; baselines: " + ", ".join(f"{m} {_fmt(spread[m])}" for m in base) if base else "")
        + f" (stable: spread <= {tolerance:g})"
    )
    return answer, evidence


def _claim_beats_ffs(curves: pd.DataFrame, bounds) -> tuple[str, str]:
    ffs = curves[curves["system"] == "FFS"]["value"]
    table = _in_range(curves, bounds).pivot(index="xi", columns="system", values="value")
    new = [m for m in NEW_METHODS if m in table]
    if ffs.empty or not new or table.empty:
        return "n/a", "FFS or the new methods missing in the range"
    reference = float(ffs.iloc[0])
    below = {m: int((table[m] < reference).sum()) for m in new}
    winners = [m for m in new if below[m] > 0]
    answer = "yes" if len(winners) == len(new) else ("partly" if winners else "no")
    parts = []
    for m in new:
        best_xi = float(table[m].idxmin())
        best = float(table[m].min())
        parts.append(
            f"{m} best {_fmt(best)} at xi={best_xi:g} ({(reference - best) / reference:+.1%} vs FFS), "
            f"below FFS at {below[m]}/{len(table)} levels"
        )
    evidence = f"FFS {_fmt(reference)}; " + "; ".join(parts)
    return answer, evidence


def evaluate_claims(
    curves: pd.DataFrame,
    *,
    superior_range=(0.05, 1.0),
    win_fraction: float = 0.9,
    stable_range=(0.05, 1.0),
    stability_tolerance: float = 0.1,
    ffs_range=(0.01, 0.3),
) -> pd.DataFrame:
    """Answer the three claims for every dataset.

    Rules: (i) ``yes`` if every new method has a lower MAE^M than every
    baseline at no fewer than ``win_fraction`` of the levels in
    ``superior_range``, ``partly`` if the new methods win at least half of
    all (new, baseline, level) comparisons, else ``no``; (ii) ``yes`` if
    every new method's MAE^M varies by at most ``stability_tolerance``
    (max - min) over ``stable_range``, ``partly`` if some do, else ``no``;
    (iii) ``yes`` if every new method is below FFS at some level of
    ``ffs_range``, ``partly`` if some are, else ``no``.

    Parameters
    ----------
    curves : pandas.DataFrame
        From :func:`curves_from_records`.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`COLUMNS`, one row per dataset and claim.
    """
    statements = [
        (
            "i",
            f"the four new methods beat the three baselines over xi in [{superior_range[0]:g}, {superior_range[1]:g}]",
            lambda c: _claim_superior(c, superior_range, win_fraction),
        ),
        (
            "ii",
            f"the four new methods are stable over xi in [{stable_range[0]:g}, {stable_range[1]:g}]",
            lambda c: _claim_stable(c, stable_range, stability_tolerance),
        ),
        (
            "iii",
            f"the new methods beat FFS somewhere in xi in [{ffs_range[0]:g}, {ffs_range[1]:g}]",
            lambda c: _claim_beats_ffs(c, ffs_range),
        ),
    ]
    rows = []
    for dataset, part in curves.groupby("dataset", sort=True):
        for claim, statement, check in statements:
            answer, evidence = check(part)
            rows.append(
                {"dataset": dataset, "claim": claim, "statement": statement, "answer": answer, "evidence": evidence}
            )
    return pd.DataFrame(rows, columns=COLUMNS)
