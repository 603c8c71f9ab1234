"""No two systems that a paper reports separately give the same table: the guard and the stored references."""

from __future__ import annotations

import pandas as pd
import pytest

from kernbench.papers import PAPERS
from kernbench.report.tables import identical_within_a_dataset, indistinguishable_systems
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


def test_two_systems_equal_on_every_cell_of_one_dataset_are_flagged():
    rows = []
    for system, test in (("NGTKsm", 70.81), ("NGTKwest", 70.81), ("AGKsm", 70.55)):
        for split, value in (("dev", 66.4 if system != "AGKsm" else 65.04), ("test", test)):
            for metric in ("accuracy", "macro_f1"):
                rows.append({"dataset": "restaurant", "system": system, "split": split, "metric": metric,
                             "value": value - (metric == "macro_f1") * 20})
    # on another dataset the two differ: the pair is flagged on the dataset where they are one system
    rows += [{**r, "dataset": "laptop", "value": r["value"] + (r["system"] == "NGTKwest")} for r in rows]
    frame = pd.DataFrame(rows)
    assert identical_within_a_dataset(frame) == [("NGTKsm", "NGTKwest", "restaurant")]
    assert indistinguishable_systems(frame) == []  # over all cells only half agree
    # a single split (Table 1's categories) is not judged: a perfect ranking can coincide
    assert identical_within_a_dataset(frame[frame["split"] == "test"]) == []


@pytest.mark.parametrize("profile", ["full", "smoke"])
@pytest.mark.parametrize("table", sorted(PAPERS))
def test_no_two_systems_of_a_stored_reference_table_are_the_same(profile, table):
    frame = pd.read_csv(REPO_ROOT / "results" / "reference" / profile / "tables" / f"{table}.csv")
    assert indistinguishable_systems(frame) == []
    assert identical_within_a_dataset(frame) == []
