"""``kernbench compare`` and ``kernbench reference`` on the committed smoke reference and hand-edited copies of it."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pandas as pd
import pytest
import yaml

from kernbench.compare import compare_results
from kernbench.errors import DataError
from kernbench.reference import store_reference
from tests.conftest import REPO_ROOT

REFERENCE = REPO_ROOT / "results" / "reference" / "smoke"


def kernbench(*args, cwd=REPO_ROOT):
    return subprocess.run([sys.executable, "-m", "kernbench.cli", *args], capture_output=True, text=True, cwd=cwd)


def ci_tolerance() -> float:
    """The tolerance `.ci/run` gives `kernbench compare` against the smoke reference."""
    match = re.search(r"^reference_tolerance=([0-9.eE+-]+)$", (REPO_ROOT / ".ci" / "run").read_text(), re.MULTILINE)
    assert match, ".ci/run sets no reference_tolerance"
    return float(match.group(1))


@pytest.fixture
def copy(tmp_path):
    """A results directory holding a copy of the committed smoke reference."""
    target = tmp_path / "run"
    shutil.copytree(REFERENCE, target)
    return target


def _test_accuracy_row(frame: pd.DataFrame) -> int:
    rows = frame.index[(frame["metric"] == "accuracy") & (frame["split"] == "test")]
    assert len(rows), "anygram.csv has no test accuracy"
    return int(rows[0])


def test_committed_reference_holds_every_configured_table_and_a_smoke_summary():
    tables = yaml.safe_load((REPO_ROOT / "config.yaml").read_text())["tables"]
    names = {p.name for p in (REFERENCE / "tables").iterdir()}
    assert {f"{t}.{ext}" for t in tables for ext in ("csv", "md")} <= names
    assert "(smoke profile)" in (REFERENCE / "results.md").read_text()


def test_identical_directories_compare_equal(copy):
    diff = compare_results(REFERENCE, copy)
    assert diff.identical
    assert diff.tables_compared == len(list((REFERENCE / "tables").glob("*.csv"))) >= 4
    result = kernbench("compare", str(REFERENCE), str(copy))
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"{diff.tables_compared} table(s) match within tolerance 0" in result.stdout


def test_an_accuracy_edited_by_a_hundredth_fails_naming_the_cell(copy):
    path = copy / "tables" / "anygram.csv"
    frame = pd.read_csv(path)
    row = _test_accuracy_row(frame)
    before = frame.at[row, "value"]
    frame.at[row, "value"] = before + 0.01
    frame.to_csv(path, index=False)

    diff = compare_results(REFERENCE, copy, tolerance=ci_tolerance())
    assert not diff.identical
    assert len(diff.moved) == 1
    moved = diff.moved[0]
    key = frame.loc[row]
    assert moved["file"] == "anygram.csv" and moved["column"] == "value"
    assert moved["a"] == pytest.approx(before) and moved["b"] == pytest.approx(before + 0.01)
    for column in ("dataset", "system", "split", "metric"):
        assert f"{column}={key[column]}" in moved["row"]

    result = kernbench("compare", str(REFERENCE), str(copy), "--tolerance", str(ci_tolerance()))
    assert result.returncode == 1
    line = next(line for line in result.stdout.splitlines() if line.startswith("moved:"))
    assert "anygram.csv" in line and f"system={key['system']}" in line and ": value: " in line
    assert f"A {before}" in line and f"B {before + 0.01}" in line
    assert "1 cell(s) moved" in result.stderr


def test_changes_within_the_tolerance_pass_and_beyond_it_fail(copy):
    path = copy / "tables" / "anygram.csv"
    frame = pd.read_csv(path)
    row = _test_accuracy_row(frame)
    frame.at[row, "value"] += 0.00015
    frame.to_csv(path, index=False)
    assert compare_results(REFERENCE, copy, tolerance=0.0002).identical
    assert len(compare_results(REFERENCE, copy, tolerance=0.0001).moved) == 1
    assert kernbench("compare", str(REFERENCE), str(copy), "--tolerance", "0.0002").returncode == 0
    assert kernbench("compare", str(REFERENCE), str(copy)).returncode == 1


def test_a_missing_row_fails_naming_it(copy):
    path = copy / "tables" / "baselines.csv"
    frame = pd.read_csv(path)
    dropped = frame.iloc[3]
    frame.drop(index=3).to_csv(path, index=False)
    diff = compare_results(REFERENCE, copy)
    assert diff.moved == [] and diff.rows_only_in_b == []
    assert len(diff.rows_only_in_a) == 1
    assert diff.rows_only_in_a[0].startswith("baselines.csv: dataset=" + str(dropped["dataset"]))
    assert f"system={dropped['system']}" in diff.rows_only_in_a[0]
    result = kernbench("compare", str(REFERENCE), str(copy))
    assert result.returncode == 1 and "row only in A: baselines.csv: dataset=" in result.stdout


def test_a_missing_table_fails_naming_it(copy):
    (copy / "tables" / "fisher.csv").unlink()
    diff = compare_results(REFERENCE, copy)
    assert diff.only_in_a == ["fisher.csv"] and diff.only_in_b == []
    reverse = kernbench("compare", str(copy), str(REFERENCE))
    assert reverse.returncode == 1 and "table only in B: fisher.csv" in reverse.stdout


def test_a_renamed_column_is_reported(copy):
    path = copy / "tables" / "ordinal.csv"
    pd.read_csv(path).rename(columns={"ci_high": "upper"}).to_csv(path, index=False)
    diff = compare_results(REFERENCE, copy)
    assert diff.column_changes == ["ordinal.csv: columns differ (only in A: ['ci_high']; only in B: ['upper'])"]
    assert diff.moved == []


def test_blanks_match_blanks_and_differ_from_numbers(tmp_path):
    for side, ci in (("a", [float("nan"), 1.0]), ("b", [float("nan"), float("nan")])):
        (tmp_path / side / "tables").mkdir(parents=True)
        pd.DataFrame({"system": ["x", "y"], "xi": [0.1, 0.1], "ci_low": ci}).to_csv(
            tmp_path / side / "tables" / "t.csv", index=False
        )
    diff = compare_results(tmp_path / "a", tmp_path / "b")
    assert [(m["row"], m["column"]) for m in diff.moved] == [("system=y, xi=0.1", "ci_low")]


def test_repeated_keys_are_matched_in_order(tmp_path):
    for side, values in (("a", [1.0, 2.0]), ("b", [1.0, 2.5])):
        (tmp_path / side / "tables").mkdir(parents=True)
        pd.DataFrame({"system": ["x", "x"], "value": values}).to_csv(tmp_path / side / "tables" / "t.csv", index=False)
    diff = compare_results(tmp_path / "a", tmp_path / "b")
    assert [(m["row"], m["a"], m["b"]) for m in diff.moved] == [("system=x (#2)", 2.0, 2.5)]


def test_bad_arguments_are_named(tmp_path, copy):
    with pytest.raises(DataError, match="tolerance"):
        compare_results(REFERENCE, copy, tolerance=-1)
    result = kernbench("compare", str(REFERENCE), str(tmp_path / "nowhere"))
    assert result.returncode == 1 and str(tmp_path / "nowhere" / "tables") in result.stderr
    (copy / "tables" / "anygram.csv").write_bytes(b"\xff\xfe\x00broken")
    with pytest.raises(DataError, match="anygram.csv"):
        compare_results(REFERENCE, copy)


def test_reference_replaces_the_profile_folder_with_the_run_tables(copy, tmp_path):
    root = tmp_path / "reference"
    (root / "smoke" / "tables").mkdir(parents=True)
    (root / "smoke" / "tables" / "stale.csv").write_text("a\n1\n")
    result = kernbench("reference", str(copy), "--profile", "smoke", "--root", str(root))
    assert result.returncode == 0, result.stderr
    written = sorted(p.relative_to(root / "smoke") for p in (root / "smoke").rglob("*") if p.is_file())
    expected = sorted(p.relative_to(REFERENCE) for p in REFERENCE.rglob("*") if p.is_file())
    assert written == expected
    assert all((root / "smoke" / p).read_bytes() == (REFERENCE / p).read_bytes() for p in expected)
    assert sorted(p.name for p in root.iterdir()) == ["smoke"]  # no staging folder left behind


def test_reference_refuses_another_profile_and_keeps_the_old_one(copy, tmp_path):
    root = tmp_path / "reference"
    (root / "full").mkdir(parents=True)
    (root / "full" / "results.md").write_text("old\n")
    with pytest.raises(DataError, match=r"results.md: the run is from the smoke profile, not full"):
        store_reference(copy, "full", root=root)
    (copy / "results.md").unlink()
    with pytest.raises(DataError, match="results.md: missing"):
        store_reference(copy, "smoke", root=root)
    assert sorted(p.name for p in root.iterdir()) == ["full"]
    assert (root / "full" / "results.md").read_text() == "old\n"
    result = kernbench("reference", str(copy), "--profile", "huge", "--root", str(root))
    assert result.returncode == 2 and "huge" in result.stderr
