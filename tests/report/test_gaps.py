"""The gap section is generated from the tables and the sensitivity table, cell by cell."""

from __future__ import annotations

import pandas as pd

from kernbench.report.gaps import NOT_BUILT, gap_rows, gaps_markdown
from kernbench.report.results_summary import results_markdown
from kernbench.report.sensitivity import COLUMNS


def _table(path, table, rows):
    frame = pd.DataFrame([
        {"dataset": d, "system": s, "split": "test", "metric": m, "value": v, "ci_low": v - 1, "ci_high": v + 1,
         "paper_value": p, "delta": None if p is None else v - p, "std": None, "n_seeds": 1, "paper": table,
         "source": "Table"}
        for d, s, m, v, p in rows
    ])
    frame.to_csv(path / f"{table}.csv", index=False)


def _sensitivity(path, rows):
    frame = pd.DataFrame([
        dict(zip(COLUMNS, [paper, paper, choice, d, s, "test", m, "default", alt, vd, v, v - vd, v - vd - 1,
                           v - vd + 1, 0.01, 100]))
        for paper, choice, d, s, m, alt, vd, v in rows
    ])
    frame.to_csv(path / "sensitivity.csv", index=False)
    return path / "sensitivity.csv"


def test_gap_cells_list_the_alternatives_measured_on_them(tmp_path):
    _table(tmp_path, "anygram", [
        ("laptop", "BiLSTM", "accuracy", 60.5, 65.6),   # gap -5.1
        ("laptop", "AGKsm", "accuracy", 62.0, 63.15),   # within 2 points: not listed
        ("sst", "AGKwess", "accuracy", 36.0, 43.0),     # gap, nothing measured
    ])
    sensitivity = _sensitivity(tmp_path, [
        ("anygram", "lstm.trainable_embeddings", "laptop", "BiLSTM", "accuracy", "frozen", 60.5, 56.0),
        ("anygram", "lstm.trainable_embeddings", "laptop", "BiLSTM", "macro_f1", "frozen", 50.0, 40.0),
        ("anygram", "anygram.lam", "laptop", "BiLSTM", "accuracy", "0.8", 60.5, 64.5),
    ])
    rows = gap_rows(tmp_path, {"anygram": 2.0}, sensitivity)
    assert set(zip(rows["dataset"], rows["system"])) == {("laptop", "BiLSTM"), ("sst", "AGKwess")}
    lam = rows[rows["choice"] == "anygram.lam"].iloc[0]
    assert lam["value_alternative"] == 64.5 and round(lam["gap_alternative"], 2) == -1.1 and lam["closes"]
    frozen = rows[rows["choice"] == "lstm.trainable_embeddings"].iloc[0]
    assert round(frozen["gap_alternative"], 2) == -9.6 and not frozen["closes"]
    text = "\n".join(gaps_markdown(tmp_path, {"anygram": 2.0}, sensitivity))
    assert "**anygram / laptop / BiLSTM**: 60.50 against the paper's 65.60 (gap -5.10)." in text
    assert "`anygram.lam` = 0.8: 64.50 (Δ +4.00 [+3.00, +5.00]; gap left -1.10) — closes" in text
    # the closing alternative is listed first
    assert text.index("anygram.lam") < text.index("lstm.trainable_embeddings")
    assert "**anygram / sst / AGKwess**" in text and "No choice in the sensitivity table was measured" in text


def test_fisher_gaps_are_taken_on_the_mean_over_categories_and_listed_per_category(tmp_path):
    _table(tmp_path, "fisher", [
        ("earn", "FSA-ln", "average_precision", 90.0, 99.0),   # gap -9: listed per category
        ("acq", "FSA-ln", "average_precision", 94.0, 95.0),    # mean 92.0 against 97.0; acq within 2 points
        ("acq", "FSA-uniform", "average_precision", 99.0, 96.0),  # +3 per category, mean +3 too
        ("earn", "FSA-uniform", "average_precision", 99.0, 99.5),
    ])
    sensitivity = _sensitivity(tmp_path, [
        ("fisher", "fisher.c", "earn", "FSA-ln", "average_precision", "c = 1000", 90.0, 96.0),
        ("fisher", "fisher.c", "acq", "FSA-ln", "average_precision", "c = 1000", 94.0, 96.0),
        ("fisher", "fisher.loss", "earn", "FSA-ln", "average_precision", "hinge", 90.0, 98.0),
    ])
    rows = gap_rows(tmp_path, {"fisher": 2.0}, sensitivity)
    headline = rows[rows["level"] == "headline"]
    ln = headline[(headline["system"] == "FSA-ln") & (headline["choice"] == "fisher.c")].iloc[0]
    assert (ln["dataset"], ln["value"], ln["paper_value"], ln["delta"]) == ("mean", 92.0, 97.0, 4.0)
    assert ln["value_alternative"] == 96.0 and ln["closes"]
    per_dataset = rows[rows["level"] == "per_dataset"]
    assert set(zip(per_dataset["dataset"], per_dataset["system"])) == {("earn", "FSA-ln"), ("acq", "FSA-uniform")}
    text = results_markdown(tmp_path, levels=[0.1], profile="full", gap_tolerance={"fisher": 2.0},
                            sensitivity=sensitivity)
    assert "**fisher / mean / FSA-ln**: 92.00 against the paper's 97.00 (gap -5.00)." in text
    assert "`fisher.c` = c = 1000: 96.00" in text
    assert "fisher, cell by cell: 2 of 4 cells lie further than 2 points from the paper" in text
    # the closest alternative of the earn cell is the loss (gap left -1), with its own interval
    assert "| earn | FSA-ln | 90.00 | 99.00 | -9.00 | `fisher.loss` = hinge | 98.00 (Δ +8.00 [+7.00, +9.00]) | -1.00 (closes) |" in text
    assert "`fisher.c` = c = 1000: 96.00 (Δ +4.00; gap left -1.00) — closes (no interval: a mean over datasets)" in text
    assert "| acq | FSA-uniform | 99.00 | 96.00 | +3.00 | none measured" in text


def test_an_alternative_whose_interval_includes_zero_does_not_close_a_gap(tmp_path):
    _table(tmp_path, "anygram", [("laptop", "AGKsm", "accuracy", 60.0, 63.0)])
    frame = pd.read_csv(_sensitivity(tmp_path, [
        ("anygram", "anygram.lam", "laptop", "AGKsm", "accuracy", "lam = 0.6", 60.0, 62.0),
    ]))
    frame[["ci_low", "ci_high"]] = [[-0.5, 4.0]]
    frame.to_csv(tmp_path / "sensitivity.csv", index=False)
    rows = gap_rows(tmp_path, {"anygram": 2.0}, tmp_path / "sensitivity.csv")
    assert rows.iloc[0]["closes"] and not rows.iloc[0]["significant"]
    text = "\n".join(gaps_markdown(tmp_path, {"anygram": 2.0}, tmp_path / "sensitivity.csv"))
    assert "gap left -1.00) — within the tolerance, but its change's interval includes 0" in text
    assert "— closes" not in text


def test_a_noise_choice_is_a_band_beside_the_gap_never_an_alternative(tmp_path):
    _table(tmp_path, "anygram", [("semeval14_laptop", "AGKwess", "accuracy", 58.1, 65.29)])
    sensitivity = _sensitivity(tmp_path, [
        ("anygram", "semeval14.dev_split_seed", "semeval14_laptop", "AGKwess", "accuracy", "seed 1", 58.1, 64.0),
        ("anygram", "semeval14.dev_split_seed", "semeval14_laptop", "AGKwess", "accuracy", "seed 2", 58.1, 57.0),
        ("anygram", "anygram.lam", "semeval14_laptop", "AGKwess", "accuracy", "lam = 0.8", 58.1, 58.5),
    ])
    rows = gap_rows(tmp_path, {"anygram": 2.0}, sensitivity)
    assert list(rows["choice"]) == ["anygram.lam"]  # the seed rows are not alternatives
    row = rows.iloc[0]
    assert (row["noise_n"], row["noise_low"], row["noise_high"]) == (3, 57.0, 64.0)
    text = "\n".join(gaps_markdown(tmp_path, {"anygram": 2.0}, sensitivity))
    assert ("selection noise, not a reading (`semeval14.dev_split_seed`, 3 runs): 57.00–64.00 (spread 7.00); "
            "the paper's value lies outside it") in text
    assert "seed 1" not in text and "seed 2" not in text
    assert "— closes" not in text


def test_a_run_without_the_sensitivity_table_lists_its_gaps_and_says_how_to_measure_them(tmp_path):
    _table(tmp_path, "anygram", [("laptop", "BiLSTM", "accuracy", 60.5, 65.6)])
    # a sensitivity.csv left by an earlier run in the same directory is not read
    _sensitivity(tmp_path, [("anygram", "anygram.lam", "laptop", "BiLSTM", "accuracy", "0.8", 60.5, 64.5)])
    rows = gap_rows(tmp_path, {"anygram": 2.0})
    assert len(rows) == 1 and rows["choice"].isna().all()
    text = "\n".join(gaps_markdown(tmp_path, {"anygram": 2.0}))
    assert "**anygram / laptop / BiLSTM**: 60.50 against the paper's 65.60 (gap -5.10)." in text
    assert NOT_BUILT in text and "--config sensitivity_table=true" in text
    assert "anygram.lam" not in text and "No choice in the sensitivity table was measured" not in text


def test_no_gap_says_so(tmp_path):
    _table(tmp_path, "anygram", [("laptop", "AGKsm", "accuracy", 62.0, 63.15)])
    assert "Every compared cell lies within the tolerance" in "\n".join(gaps_markdown(tmp_path, {"anygram": 2.0}))
