"""What the MLflow dashboard shows: comparable metric names, table cells, names, times, datasets, models, summaries."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from mlflow.tracking import MlflowClient

from kernbench.report.tables import build_table, load_paper_values, write_table
from kernbench.report.tracking import default_tracking_uri, log_records
from kernbench.report.tracking_assets import keras_pip_requirements
from kernbench.report.tracking_entries import Entry, assign_names, curve_metrics, load_cells, record_entries
from tests.conftest import REPO_ROOT, write_record

PAPER_VALUES = REPO_ROOT / "workflow" / "paper_results.yaml"
STARTED, FINISHED = 1_700_000_000_000, 1_700_000_123_456


def _record(tmp_path, paper, dataset, system, rows, *, params=None, curves=None, artifacts=None):
    params = params or {"seed": 1}
    return write_record(
        tmp_path / f"{paper}-{dataset}-{system}-{params.get('seed')}.json",
        paper=paper,
        dataset=dataset,
        system=system,
        rows=rows,
        key_params=params,
        curves=curves,
        timings={"fit": 1.5},
        artifacts=artifacts,
        provenance={
            "git_commit": "0123abc-dirty", "config_hash": "def", "packages": {"numpy": "2"},
            "command": "kernbench anygram-run", "user": "alice", "started": STARTED, "finished": FINISHED,
        },
    )


def _table(tmp_path, paths, name):
    csv = tmp_path / "tables" / f"{name}.csv"
    csv.parent.mkdir(exist_ok=True)
    write_table(build_table(paths, load_paper_values(PAPER_VALUES)), csv, tmp_path / "tables" / f"{name}.md")
    return csv


def _runs(uri, paper):
    client = MlflowClient(tracking_uri=uri)
    experiment = client.get_experiment_by_name(f"kernbench-{paper}")
    return client, client.search_runs([experiment.experiment_id], max_results=1000)


def test_metrics_are_named_without_dataset_in_table_units_beside_paper_delta_and_interval(tmp_path):
    rows = [{"dataset": "semeval14_laptop", "split": s, "metric": "accuracy", "value": v}
            for s, v in (("dev", 0.6), ("test", 0.6529))]
    paths = [_record(tmp_path, "anygram", "semeval14_laptop", "AGKwess", rows)]
    csv = _table(tmp_path, paths, "anygram")
    frame = pd.read_csv(csv)
    frame.loc[frame["split"] == "test", ["ci_low", "ci_high"]] = [61.5, 68.25]  # as the bootstrap would fill them
    frame.to_csv(csv, index=False)
    uri = default_tracking_uri(tmp_path)
    log_records(paths, tracking_uri=uri, artifact_root=tmp_path / "art", table_paths=[csv])

    _, runs = _runs(uri, "anygram")
    run = next(r for r in runs if r.data.tags.get("kind") != "summary")
    metrics = run.data.metrics
    assert metrics["test.accuracy"] == 65.29 and metrics["dev.accuracy"] == 60.0
    assert metrics["paper.test.accuracy"] == 65.29 and metrics["delta.test.accuracy"] == 0.0
    assert metrics["paper.dev.accuracy"] == 65.04 and metrics["delta.dev.accuracy"] == pytest.approx(-5.04)
    assert metrics["ci_low.test.accuracy"] == 61.5 and metrics["ci_high.test.accuracy"] == 68.25
    assert "ci_low.dev.accuracy" not in metrics  # a blank interval is not logged as NaN
    assert not any(name.startswith("semeval14_laptop") for name in metrics)
    tags = run.data.tags
    assert {k: tags[k] for k in ("paper", "table", "dataset", "system", "seed")} == {
        "paper": "anygram", "table": "anygram", "dataset": "semeval14_laptop", "system": "AGKwess", "seed": "1"}
    assert run.info.run_name == "semeval14_laptop/AGKwess"


def test_run_has_the_jobs_times_and_mlflow_source_git_and_user_tags(tmp_path):
    rows = [{"dataset": "sst", "split": "test", "metric": "accuracy", "value": 0.4}]
    uri = default_tracking_uri(tmp_path)
    log_records([_record(tmp_path, "anygram", "sst", "Triv", rows)], tracking_uri=uri, artifact_root=tmp_path / "a")
    _, runs = _runs(uri, "anygram")
    run = next(r for r in runs if r.data.tags.get("kind") != "summary")
    assert (run.info.start_time, run.info.end_time) == (STARTED, FINISHED)
    assert run.info.status == "FINISHED"
    tags = run.data.tags
    assert tags["mlflow.source.name"] == "kernbench anygram-run" and tags["mlflow.source.type"] == "JOB"
    assert tags["mlflow.source.git.commit"] == "0123abc" and tags["mlflow.user"] == "alice"


def test_record_of_several_categories_gets_one_child_run_per_category(tmp_path):
    rows = [{"dataset": c, "split": "test", "metric": "average_precision", "value": v}
            for c, v in (("earn", 0.99), ("acq", 0.95))]
    paths = [_record(tmp_path, "fisher", "reuters", "BoW-TFIDF", rows)]
    csv = _table(tmp_path, paths, "fisher")
    uri = default_tracking_uri(tmp_path)
    first = log_records(paths, tracking_uri=uri, artifact_root=tmp_path / "a", table_paths=[csv])
    assert [m["run_name"] for m in first] == ["reuters/BoW-TFIDF", "acq/BoW-TFIDF", "earn/BoW-TFIDF", "fisher summary"]

    client, runs = _runs(uri, "fisher")
    by_name = {r.info.run_name: r for r in runs}
    parent = by_name["reuters/BoW-TFIDF"]
    earn = by_name["earn/BoW-TFIDF"]
    assert earn.data.tags["mlflow.parentRunId"] == parent.info.run_id
    assert earn.data.tags["category"] == "earn" and earn.data.tags["dataset"] == "reuters"
    assert earn.data.metrics["test.average_precision"] == 99.0
    assert earn.data.metrics["delta.test.average_precision"] == pytest.approx(-0.91)
    assert by_name["acq/BoW-TFIDF"].data.metrics["paper.test.average_precision"] == 99.61
    assert "test.average_precision" not in parent.data.metrics
    found = client.search_runs([parent.info.experiment_id], filter_string="tags.category = 'earn'")
    assert [r.info.run_id for r in found] == [earn.info.run_id]

    again = log_records(paths, tracking_uri=uri, artifact_root=tmp_path / "a", table_paths=[csv])
    assert [m["status"] for m in again] == ["unchanged"] * 4
    assert sorted(m["run_id"] for m in again) == sorted(m["run_id"] for m in first)
    assert len(_runs(uri, "fisher")[1]) == 4


def test_a_triv_of_the_baselines_table_and_one_of_figure_1_get_their_own_tables_cells(tmp_path):
    # Same paper, dataset, system, split and metric, no level: only the table tells them apart.
    columns = {"paper": "ordinal", "dataset": "reviews_hotel", "system": "Triv", "split": "test", "metric": "mae_macro",
               "ci_high": 1.3}
    paths = []
    for table, paper_value, ci_low in (("baselines", None, 1.9), ("ordinal", 1.2, 1.1)):
        paths.append(tmp_path / f"{table}.csv")
        pd.DataFrame([{**columns, "paper_value": paper_value, "ci_low": ci_low}]).to_csv(paths[-1], index=False)
    cells = load_cells(paths)
    rows = [{"dataset": "reviews_hotel", "split": "test", "metric": "mae_macro", "value": 1.2}]
    for table, expected in (("baselines", {"ci_low.test.mae_macro": 1.9}),
                            ("ordinal", {"ci_low.test.mae_macro": 1.1, "paper.test.mae_macro": 1.2})):
        record = {"paper": "ordinal", "table": table, "dataset": "reviews_hotel", "system": "Triv", "rows": rows}
        entry, children = record_entries(record, cells)
        assert children == [] and entry.tags == {"table": table}
        assert {k: v for k, v in entry.metrics.items() if k.startswith(("ci_low", "paper"))} == expected


def test_ordinal_children_are_the_table_levels_and_curves_are_stepped_by_xi(tmp_path):
    levels = [0.01, 0.05, 0.3, 0.99]
    rows = [{"dataset": "reviews_hotel", "split": "test", "metric": "mae_macro", "xi": x, "value": 1.0 - x / 2}
            for x in levels]
    curves = {"xi": levels, "test.mae_macro": [r["value"] for r in rows], "dev.mae_macro.a_4": [0.9, 0.8, 0.7, 0.6]}
    record = json.loads(_record(tmp_path, "ordinal", "reviews_hotel", "PRP", rows, curves=curves).read_text())
    nan = float("nan")
    cell = {"table": "ordinal", "paper_value": nan, "ci_low": 0.8, "ci_high": nan}
    cells = {("ordinal", "reviews_hotel", "PRP", "test", "mae_macro", 0.3): cell}
    parent, children = record_entries(record, cells, {"ordinal": {"xi": [0.05, 0.3, 1.0]}})
    assert [c.xi for c in children] == [0.05, 0.3] and [c.tags["xi"] for c in children] == ["0.05", "0.3"]
    assert children[1].metrics == {"test.mae_macro": 0.85, "ci_low.test.mae_macro": 0.8} and parent.metrics == {}
    assert parent.tags == {"table": "ordinal"} and children[1].tags["table"] == "ordinal"

    steps = curve_metrics(curves)
    assert ("curve.test.mae_macro", 0.995, 10) in steps and ("curve.test.mae_macro", 0.505, 990) in steps
    assert ("curve.dev.mae_macro.a_4", 0.6, 990) in steps
    assert not any(name == "curve.xi" or name == "xi" for name, _, _ in steps)


def test_keras_history_curves_become_train_and_dev_curves_in_percent_by_epoch():
    steps = curve_metrics({"loss": [1.2, 0.9], "val_loss": [1.3, 1.1], "accuracy": [0.5, 0.625], "val_accuracy": [0.4, 0.45]})
    assert steps == [
        ("curve.train.accuracy", 50.0, 1), ("curve.train.accuracy", 62.5, 2),
        ("curve.train.loss", 1.2, 1), ("curve.train.loss", 0.9, 2),
        ("curve.dev.accuracy", 40.0, 1), ("curve.dev.accuracy", 45.0, 2),
        ("curve.dev.loss", 1.3, 1), ("curve.dev.loss", 1.1, 2),
    ]


def test_run_names_tell_seeds_papers_and_parameter_variants_apart():
    def run(paper, dataset, system, seed, key="p/d/s/aaaa", command="kernbench baseline"):
        return ({"paper": paper, "dataset": dataset, "system": system, "params": {"seed": seed}, "run_key": key,
                 "provenance": {"command": command}}, Entry(), [])

    runs = [
        run("anygram", "sst", "UniLSTM", 1), run("anygram", "sst", "UniLSTM", 2),
        run("ordinal", "reviews_hotel", "Triv", 0), run("baselines", "reviews_hotel", "Triv", 0),
        run("fisher", "reuters", "FSA", 0, "f/r/FSA/111"), run("fisher", "reuters", "FSA", 0, "f/r/FSA/222"),
        run("anygram", "sst", "AGKsm", 0),
        run("ordinal", "reviews_clothing", "Triv", 0, "o/r/Triv/1"),
        run("ordinal", "reviews_clothing", "Triv", 0, "o/r/Triv/2", command="kernbench ordinal-run"),
    ]
    assign_names(runs)
    names = [parent.name for _, parent, _ in runs]
    assert names == [
        "sst/UniLSTM seed 1", "sst/UniLSTM seed 2", "ordinal: reviews_hotel/Triv", "baselines: reviews_hotel/Triv",
        "reuters/FSA [111]", "reuters/FSA [222]", "sst/AGKsm",
        "reviews_clothing/Triv (baseline)", "reviews_clothing/Triv (ordinal-run)",
    ]


def test_prepared_dataset_is_logged_with_its_digest(tmp_path):
    import mlflow.data

    prepared = tmp_path / "prepared"
    prepared.mkdir()
    frame = pd.DataFrame({"id": ["a", "b", "c"], "split": ["train", "dev", "test"], "text": ["x y", "y", "z"],
                          "label": [1, 0, 1]})
    frame.to_parquet(prepared / "sst.parquet")
    rows = [{"dataset": "sst", "split": "test", "metric": "accuracy", "value": 0.4}]
    uri = default_tracking_uri(tmp_path)
    log_records([_record(tmp_path, "anygram", "sst", "Triv", rows)], tracking_uri=uri, artifact_root=tmp_path / "a",
                prepared_dir=prepared)
    _, runs = _runs(uri, "anygram")
    run = next(r for r in runs if r.data.tags.get("kind") != "summary")
    [logged] = run.inputs.dataset_inputs
    expected = mlflow.data.from_pandas(pd.read_parquet(prepared / "sst.parquet"))
    assert logged.dataset.name == "sst" and logged.dataset.digest == expected.digest
    assert {t.key: t.value for t in logged.tags}["mlflow.data.context"] == "prepared"


def test_keras_model_is_logged_as_an_mlflow_model_with_its_signature(tmp_path):
    import keras
    import mlflow

    tokens = keras.Input(shape=(None,), dtype="int32", name="tokens")
    hidden = keras.layers.LSTM(2, name="lstm_1")(keras.layers.Embedding(5, 3, name="embedding")(tokens))
    model = keras.Model(tokens, keras.layers.Dense(3, activation="softmax", name="output")(hidden))
    model.save(tmp_path / "model.keras")
    rows = [{"dataset": "sst", "split": "test", "metric": "accuracy", "value": 0.4}]
    uri = default_tracking_uri(tmp_path)
    path = _record(tmp_path, "anygram", "sst", "UniLSTM", rows, artifacts=[tmp_path / "model.keras"],
                   curves={"loss": [1.0, 0.5]})
    log_records([path], tracking_uri=uri, artifact_root=tmp_path / "a")
    _, runs = _runs(uri, "anygram")
    run = next(r for r in runs if r.data.tags.get("kind") != "summary")
    assert (run.info.start_time, run.info.end_time) == (STARTED, FINISHED)  # model logging does not reset them
    assert run.data.tags["mlflow.source.name"] == "kernbench anygram-run"

    mlflow.set_tracking_uri(uri)
    [logged] = mlflow.search_logged_models(experiment_ids=[run.info.experiment_id], output_format="list")
    assert logged.source_run_id == run.info.run_id
    info = mlflow.models.get_model_info(logged.model_uri)
    assert info.signature.inputs.to_dict() == [{"type": "tensor", "tensor-spec": {"dtype": "int32", "shape": (-1, -1)},
                                                "name": "tokens"}]
    assert info.signature.outputs.to_dict()[0]["tensor-spec"] == {"dtype": "float32", "shape": (-1, 3)}
    loaded = mlflow.keras.load_model(logged.model_uri)
    batch = np.array([[1, 2, 3]], dtype="int32")
    np.testing.assert_allclose(loaded.predict(batch, verbose=0), model.predict(batch, verbose=0), rtol=1e-6)


def test_keras_requirements_are_the_ones_mlflow_infers_for_a_model(tmp_path):
    import keras
    import mlflow

    tokens = keras.Input(shape=(None,), dtype="int32", name="tokens")
    model = keras.Model(tokens, keras.layers.Dense(3, name="output")(keras.layers.Embedding(5, 3)(tokens)))
    mlflow.keras.save_model(model, str(tmp_path / "inferred"))  # MLflow's own inference, in a subprocess
    inferred = (tmp_path / "inferred" / "requirements.txt").read_text().split()
    assert sorted(keras_pip_requirements()) == sorted(inferred)


def test_summary_run_holds_the_papers_table_and_figures_and_is_kept_on_rerun(tmp_path):
    import matplotlib
    import mlflow

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [{"dataset": "sst", "split": "test", "metric": "accuracy", "value": 0.4}]
    paths = [_record(tmp_path, "anygram", "sst", "AGKsm", rows)]
    csv = _table(tmp_path, paths, "anygram")
    figure = tmp_path / "figures" / "anygram_accuracy.png"
    figure.parent.mkdir()
    fig, axes = plt.subplots(figsize=(2, 1))
    axes.plot([0, 1], [1, 0])
    fig.savefig(figure, dpi=50)
    plt.close(fig)
    other = tmp_path / "figures" / "fisher_average_precision.png"
    other.write_bytes(figure.read_bytes())
    uri = default_tracking_uri(tmp_path)
    args = dict(tracking_uri=uri, artifact_root=tmp_path / "a", table_paths=[csv], figure_paths=[figure, other])
    first = log_records(paths, **args)
    assert first[-1]["run_name"] == "anygram summary" and first[-1]["status"] == "logged"

    client, runs = _runs(uri, "anygram")
    summary = next(r for r in runs if r.data.tags.get("kind") == "summary")
    files = {a.path for d in ("tables", "figures") for a in client.list_artifacts(summary.info.run_id, d)}
    assert files == {"tables/anygram.json", "figures/anygram_accuracy.png"}
    mlflow.set_tracking_uri(uri)  # load_table searches through the global URI, not the client's
    table = client.load_table(summary.info.experiment_id, "tables/anygram.json", run_ids=[summary.info.run_id])
    assert table["value"].tolist() == [40.0] and table["system"].tolist() == ["AGKsm"]
    image = plt.imread(client.download_artifacts(summary.info.run_id, "figures/anygram_accuracy.png", str(tmp_path)))
    assert image.shape[:2] == plt.imread(figure).shape[:2]  # pixel for pixel

    assert [m["status"] for m in log_records(paths, **args)] == ["unchanged", "unchanged"]
    pd.read_csv(csv).assign(value=41.0).to_csv(csv, index=False)
    assert [m["status"] for m in log_records(paths, **args)] == ["unchanged", "replaced"]  # a new table relogs


def test_unreadable_table_is_named_in_the_error(tmp_path):
    from kernbench.errors import DataError

    bad = tmp_path / "anygram.csv"
    bad.write_text("dataset,system\nsst,Triv\n")
    with pytest.raises(DataError, match="anygram.csv.*lacks column"):
        load_cells([bad])
