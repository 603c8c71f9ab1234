"""No two systems that a paper reports separately give the same table: the guard and the stored references."""

from __future__ import annotations

import pandas as pd
import pytest

from kernbench.papers import PAPERS
from kernbench.report.tables import indistinguishable_systems
from tests.conftest import REPO_ROOT


def _cells(system, values, metric="average_precision"):
    return [{"dataset": f"c{i}", "system": system, "split": "test", "metric": metric, "value": v}
            for i, v in enumerate(values)]


def test_two_systems_equal_in_nine_of_ten_cells_are_flagged():
    a = [99.57, 95.49, 100.0, 99.95, 99.82, 98.07, 89.07, 99.71, 93.47, 95.95]
    b = a[:6] + [89.5] + a[7:]  # one cell apart, as FSA-ln and FSA-uniform were at c = 1000
    c = [v - 0.5 for v in a]
    frame = pd.DataFrame(_cells("FSA-ln", a) + _cells("FSA-uniform", b) + _cells("ngram-ln", c))
    assert indistinguishable_systems(frame) == [("FSA-ln", "FSA-uniform", 9, 10)]


def test_cells_are_matched_on_every_key_but_the_system():
    rows = _cells("A", [1.0, 2.0, 3.0], "mae") + _cells("B", [1.0, 2.0, 3.0], "accuracy")
    assert indistinguishable_systems(pd.DataFrame(rows)) == []  # other metrics: nothing shared
    assert indistinguishable_systems(pd.DataFrame(rows[:3] + _cells("B", [1.0, 2.0], "mae"))) == []  # 2 cells


@pytest.mark.parametrize("profile", ["full", "smoke"])
@pytest.mark.parametrize("table", sorted(PAPERS))
def test_no_two_systems_of_a_stored_reference_table_are_the_same(profile, table):
    frame = pd.read_csv(REPO_ROOT / "results" / "reference" / profile / "tables" / f"{table}.csv")
    assert indistinguishable_systems(frame) == []
