"""The README's Results section is written from the tables, cell by cell."""

from __future__ import annotations

import pandas as pd
import pytest

from kernbench.errors import DataError
from kernbench.report.results_summary import END, START, results_markdown, update_readme


def _anygram_table(path):
    rows = []
    for system, n_seeds, std in (("AGKsm", 1, None), ("BiLSTM", 3, 1.25)):
        for split, value, paper in (("dev", 69.5, 62.47), ("test", 60.4, 63.15)):
            rows.append({"dataset": "sst", "system": system, "split": split, "metric": "accuracy", "value": value,
                         "ci_low": value - 4, "ci_high": value + 4, "paper_value": paper, "delta": value - paper,
                         "reproduces": "paper_in_interval", "std": std, "n_seeds": n_seeds, "paper": "anygram",
                         "source": "Table 3"})
            rows.append({**rows[-1], "metric": "macro_f1", "value": 1.0, "paper_value": None, "delta": None,
                         "reproduces": None})
    pd.DataFrame(rows).to_csv(path / "anygram.csv", index=False)


def test_table3_rows_carry_dev_test_intervals_and_seed_spread(tmp_path):
    _anygram_table(tmp_path)
    text = results_markdown(tmp_path, levels=[0.1], profile="full")
    assert "| sst | AGKsm | 69.50 [65.50, 73.50] | 62.47 | 60.40 [56.40, 64.40] | 63.15 | -2.75 | ≈ paper in 95 % CI |" in text
    assert ("| sst | BiLSTM | 69.50 ± 1.25 [65.50, 73.50] | 62.47 | 60.40 ± 1.25 [56.40, 64.40] | 63.15 | -2.75 | "
            "≈ paper in 95 % CI |") in text
    assert "macro" not in text.split("Table 3", 1)[1]
    # the count of reproduced cells opens the text, before the tables
    counts = ("Kaljahi & Foster, Table 3 (`tables/anygram.csv`): 2 test cells with a paper value: 0 ✓ within "
              "tolerance, 2 ≈ paper in 95 % CI, 0 ✗ outside.")
    assert counts in text and text.index(counts) < text.index("| dataset | system |")
    assert "not a reproduction" not in text


def test_a_subsample_profile_says_so_before_any_number(tmp_path):
    _anygram_table(tmp_path)
    text = results_markdown(tmp_path, levels=[0.1], profile="smoke")
    banner = "> **Smoke profile: not a reproduction.**"
    assert banner in text and text.index(banner) < text.index("test cells with a paper value")


def test_no_tables_is_an_error_and_readme_needs_markers(tmp_path):
    with pytest.raises(DataError, match="no tables"):
        results_markdown(tmp_path, levels=[0.1], profile="full")
    readme = tmp_path / "README.md"
    readme.write_text("# x\n")
    with pytest.raises(DataError, match="markers"):
        update_readme(readme, "new\n")
    readme.write_text(f"# x\n{START}\nold\n{END}\ntail\n")
    update_readme(readme, "new\n")
    assert readme.read_text() == f"# x\n{START}\nnew\n{END}\ntail\n"


def test_claims_answers_per_dataset(tmp_path):
    _anygram_table(tmp_path)
    pd.DataFrame([
        {"dataset": d, "claim": c, "statement": f"statement {c}", "answer": a, "evidence": "e"}
        for d, answers in (("reviews_clothing", ("partly", "yes", "no")), ("reviews_hotel", ("yes", "yes", "partly")))
        for c, a in zip(("i", "ii", "iii"), answers)
    ]).to_csv(tmp_path / "ordinal_claims.csv", index=False)
    text = results_markdown(tmp_path, levels=[0.1], profile="full")
    assert "| claim | reviews_clothing | reviews_hotel |" in text
    assert "| (iii) statement iii | no | partly |" in text
