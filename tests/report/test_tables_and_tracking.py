"""Tables carry paper values and deltas; MLflow logging is idempotent by run key."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from mlflow.tracking import MlflowClient

from kernbench.report.tables import build_table, load_paper_values, write_table
from kernbench.report.tracking import default_tracking_uri, log_records
from tests.conftest import REPO_ROOT, write_record

PAPER_VALUES = REPO_ROOT / "workflow" / "paper_results.yaml"


def _record(tmp_path, dataset, system, rows, *, paper="anygram", params=None):
    return write_record(
        tmp_path / f"{paper}-{dataset}-{system}.json",
        paper=paper,
        dataset=dataset,
        system=system,
        rows=rows,
        key_params=params or {"C": [1.0]},
        curves={"val_accuracy": [0.5, 0.6, 0.7]},
        timings={"fit": 1.5},
        provenance={"git_commit": "abc", "config_hash": "def", "packages": {"numpy": "2"}},
    )


def test_paper_values_hold_table_3_and_table_1():
    values = load_paper_values(PAPER_VALUES).set_index(["dataset", "system", "split", "metric"])["paper_value"]
    assert values[("semeval14_laptop", "AGKwess", "test", "accuracy")] == 65.29
    assert values[("sst", "BiLSTM", "dev", "accuracy")] == 42.69
    assert values[("crude", "FSA-uniform", "test", "average_precision")] == 100.0
    assert values[("earn", "BoW-TFIDF", "test", "average_precision")] == 99.91
    assert ("semeval14_laptop", "NGTKsm", "dev", "accuracy") in values.index
    assert ("sst", "NGTKsm", "dev", "accuracy") not in values.index  # the paper has no NGTK on SST
    assert len(values) == 7 * 6 - 4 + 6 * 10 + 4


def test_a_value_chosen_on_the_edge_of_its_grid_is_flagged_in_the_table(tmp_path):
    from kernbench.runs import grid_choice

    rows = [{"dataset": "sst", "split": "test", "metric": "accuracy", "value": 0.4}]
    top = write_record(tmp_path / "a.json", paper="anygram", dataset="sst", system="AGKwess", rows=rows,
                       grid_choices={"C": grid_choice(1000.0, [0.1, 1, 10, 100, 1000]),
                                     "theta": grid_choice(0.9, [0.8, 0.9, 0.95])})
    inside = write_record(tmp_path / "b.json", paper="anygram", dataset="sst", system="AGKsm", rows=rows,
                          grid_choices={"C": grid_choice(10.0, [0.1, 1, 10, 100, 1000]),
                                        "theta": grid_choice(0.9, [0.9])})  # a grid of one value chooses nothing
    bottom = write_record(tmp_path / "c.json", paper="anygram", dataset="sst", system="AGKwest", rows=rows,
                          grid_choices={"theta": grid_choice(0.8, [0.98, 0.8, 0.9])})
    table = build_table([top, inside, bottom], load_paper_values(PAPER_VALUES)).set_index("system")
    assert table.loc["AGKwess", "grid_edge"] == "C = 1000 (top of 0.1-1000)"
    assert table.loc["AGKsm", "grid_edge"] == ""
    assert table.loc["AGKwest", "grid_edge"] == "theta = 0.8 (bottom of 0.8-0.98)"
    write_table(table.reset_index(), tmp_path / "t.csv", tmp_path / "t.md")
    assert "C = 1000 (top of 0.1-1000)" in (tmp_path / "t.md").read_text()


def test_table_scales_percent_metrics_and_computes_delta(tmp_path):
    rows = [
        {"dataset": "earn", "split": "test", "metric": "average_precision", "value": 0.99},
        {"dataset": "earn", "split": "test", "metric": "f1", "value": 0.5},
    ]
    laptop = [{"dataset": "semeval14_laptop", "split": "test", "metric": "accuracy", "value": 0.6529}]
    paths = [
        _record(tmp_path, "reuters", "BoW-TFIDF", rows, paper="fisher"),
        _record(tmp_path, "semeval14_laptop", "AGKwess", laptop),
    ]
    table = build_table(paths, load_paper_values(PAPER_VALUES))
    earn = table[(table["dataset"] == "earn") & (table["metric"] == "average_precision")].iloc[0]
    assert earn["value"] == 99.0 and earn["paper_value"] == 99.91 and earn["delta"] == pytest.approx(-0.91)
    assert pd.isna(table[table["metric"] == "f1"].iloc[0]["paper_value"])
    laptop_row = table[table["dataset"] == "semeval14_laptop"].iloc[0]
    assert laptop_row["delta"] == 0.0
    assert list(table.columns[:9]) == ["dataset", "system", "split", "metric", "value", "ci_low", "ci_high",
                                      "paper_value", "delta"]
    assert table["ci_low"].isna().all()  # no predictions, no resamples: no interval
    assert (table["n_seeds"] == 1).all() and table["std"].isna().all()

    write_table(table, tmp_path / "t.csv", tmp_path / "t.md")
    first = (tmp_path / "t.csv").read_bytes()
    write_table(build_table(paths[::-1], load_paper_values(PAPER_VALUES)), tmp_path / "t.csv", tmp_path / "t.md")
    assert (tmp_path / "t.csv").read_bytes() == first  # record order does not matter
    assert "| earn" in (tmp_path / "t.md").read_text()


def test_seeds_of_one_system_become_mean_std_and_count(tmp_path):
    paths = [
        _record(
            tmp_path,
            "sst",
            f"BiLSTM-{seed}",
            [{"dataset": "sst", "split": "test", "metric": "accuracy", "value": value}],
            params={"seed": seed},
        )
        for seed, value in [(1, 0.40), (2, 0.42), (3, 0.44)]
    ]
    for path in paths:  # the three records are one system run with three seeds
        record = json.loads(path.read_text())
        path.write_text(json.dumps({**record, "system": "BiLSTM"}))
    table = build_table(paths, load_paper_values(PAPER_VALUES))
    assert len(table) == 1
    row = table.iloc[0]
    assert row["value"] == pytest.approx(42.0) and row["std"] == pytest.approx(2.0) and row["n_seeds"] == 3
    assert row["paper_value"] == 43.57 and row["delta"] == pytest.approx(-1.57)


def test_mlflow_logging_is_idempotent_and_replaces_changed_runs(tmp_path):
    rows = [{"dataset": "sst", "split": "test", "metric": "accuracy", "value": 0.4}]
    paths = [_record(tmp_path, "sst", "Triv", rows), _record(tmp_path, "sst", "BoW-TFIDF", rows)]
    uri = default_tracking_uri(tmp_path)
    first = log_records(paths, tracking_uri=uri, artifact_root=tmp_path / "art")
    assert [m["status"] for m in first] == ["logged", "logged"]
    second = log_records(paths, tracking_uri=uri, artifact_root=tmp_path / "art")
    assert [m["status"] for m in second] == ["unchanged", "unchanged"]
    assert [m["run_id"] for m in second] == [m["run_id"] for m in first]

    changed = [{"dataset": "sst", "split": "test", "metric": "accuracy", "value": 0.45}]
    paths[0] = _record(tmp_path, "sst", "Triv", changed)
    third = log_records(paths, tracking_uri=uri, artifact_root=tmp_path / "art")
    assert [m["status"] for m in third] == ["replaced", "unchanged"]

    client = MlflowClient(tracking_uri=uri)
    experiment = client.get_experiment_by_name("kernbench-anygram")
    runs = client.search_runs([experiment.experiment_id])
    assert len(runs) == 2
    triv = next(r for r in runs if r.data.tags["system"] == "Triv")
    assert triv.data.metrics["test.accuracy"] == 45.0  # percent, as in the tables
    history = client.get_metric_history(triv.info.run_id, "curve.dev.accuracy")
    assert [(m.step, m.value) for m in history] == [(1, 50.0), (2, 60.0), (3, 70.0)]
    assert triv.data.params["C"] == "[1.0]"
    artifacts = [a.path for a in client.list_artifacts(triv.info.run_id)]
    assert any(a.endswith(".json") for a in artifacts)


def test_each_cell_says_whether_it_reproduces_the_paper(tmp_path):
    from kernbench.report.tables import reproduction_status

    frame = pd.DataFrame({
        "value": [63.0, 60.0, 60.0, 60.0],
        "ci_low": [60.0, 57.0, 55.0, None],
        "ci_high": [66.0, 63.0, 62.0, None],
        "paper_value": [63.15, 62.5, 65.29, None],
    })
    assert reproduction_status(frame, 2.0).tolist() == ["within_tolerance", "paper_in_interval", "outside", ""]
    # without a tolerance only the interval judges: 63.15 lies in [60, 66]
    assert reproduction_status(frame, None).tolist() == ["paper_in_interval", "paper_in_interval", "outside", ""]
    rows = [{"dataset": "semeval14_laptop", "split": "test", "metric": "accuracy", "value": 0.62}]
    path = _record(tmp_path, "semeval14_laptop", "AGKwess", rows)  # paper 65.29: 3.29 points away
    table = build_table([path], load_paper_values(PAPER_VALUES), tolerance=2.0)
    assert table["reproduces"].tolist() == ["outside"]
    write_table(table, tmp_path / "t.csv", tmp_path / "t.md")
    md = (tmp_path / "t.md").read_text()
    assert md.startswith("Test cells with a paper value: 1 (0 ✓ within tolerance, 0 ≈ paper in 95 % CI, 1 ✗ outside).")
    assert "✗ outside" in md.splitlines()[4]
