"""Table 1's lines of results.md: the weight range per system and the readings of the scrambled header."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import yaml

from kernbench.papers.fisher.summary import COLUMNS, column_readings, plausible_readings, summary_lines
from tests.papers.fisher.test_fisher_defaults import REPO_ROOT

CATEGORIES = ["earn", "crude"]


def _paper_values() -> dict:
    values = yaml.safe_load((REPO_ROOT / "workflow/paper_results.yaml").read_text(encoding="utf-8"))["fisher"]["values"]
    return {(v["dataset"], v["system"]): v["value"] for v in values}


def _table(reproduced) -> pd.DataFrame:
    """fisher.csv rows of the paper's AP: ``reproduced(dataset, system, paper_value)`` gives the value."""
    paper = _paper_values()
    rows = [{"dataset": d, "system": s, "split": "test", "metric": "average_precision",
             "value": reproduced(d, s, paper[(d, s)]), "paper_value": paper[(d, s)]}
            for d in CATEGORIES for s in COLUMNS]
    return pd.DataFrame(rows)


def test_the_default_reading_is_the_one_of_paper_results():
    source = yaml.safe_load((REPO_ROOT / "workflow/paper_results.yaml").read_text(encoding="utf-8"))["fisher"]["source"]
    assert source.endswith("columns read as " + ", ".join(COLUMNS))
    # FSA is in the two columns with 100.0 on crude, as the text says.
    paper = _paper_values()
    assert paper[("crude", "FSA-uniform")] == paper[("crude", "FSA-ln")] == 100.0


def test_twelve_readings_keep_bow_first_and_fsa_in_the_crude_columns():
    readings = plausible_readings()
    assert len(readings) == len(set(readings)) == 12 and readings[0] == COLUMNS
    assert all(r[0] == "BoW-TFIDF" and {r[3], r[4]} == {"FSA-uniform", "FSA-ln"} for r in readings)


def test_readings_compare_each_system_with_the_column_the_reading_gives_it():
    # Reproduced = paper under the default reading: that reading is exact, a swap of the FSA columns is not.
    table = _table(lambda d, s, p: p)
    readings = column_readings(table).set_index("reading")
    default = readings.loc[", ".join(COLUMNS[1:])]
    assert default["default"] and default["mean_abs_delta"] == 0 and default["within"] == default["cells"] == 12
    swapped = ", ".join(["ngram-uniform", "ngram-ln", "FSA-ln", "FSA-uniform", "ngram-nonuniform"])
    paper = _paper_values()
    expected = sum(abs(paper[(d, "FSA-uniform")] - paper[(d, "FSA-ln")]) for d in CATEGORIES) * 2 / 12
    assert readings.loc[swapped, "mean_abs_delta"] == pytest.approx(expected) and not readings.loc[swapped, "default"]


def test_summary_lines_show_c_and_weight_range_from_the_run_records(tmp_path):
    tables = tmp_path / "tables"
    tables.mkdir()
    _table(lambda d, s, p: p - 1.0).to_csv(tables / "fisher.csv", index=False)
    for system, params in (("FSA-ln", {"c": 1.0, "weights": {"weight": "-ln p", "min": 0.421, "max": 4.97}}),
                           ("FSA-uniform", {"c": None, "weights": {"weight": "|A|", "min": 61.0, "max": 61.0}})):
        path = tmp_path / "runs/fisher/reuters" / system / "earn.json"
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps({"params": params}))
    text = "\n".join(summary_lines(tables))
    assert "| FSA-ln | 1 | -ln p | 0.421 | 4.97 |" in text and "| FSA-uniform | – | \\|A\\| | 61 | 61 |" in text
    assert f"| {', '.join(COLUMNS[1:])} (default) | 1.00 | 12 of 12 |" in text
    # Without run records beside the tables (a stored reference), the weight lines are left out.
    (tmp_path / "runs").rename(tmp_path / "elsewhere")
    assert "-ln p" not in "\n".join(summary_lines(tables))
