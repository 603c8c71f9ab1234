"""What the MLflow dashboard shows: comparable metric names, table cells, names, times, datasets, models, summaries."""

from __future__ import annotations

import json
import warnings

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
    assert metrics["test.accuracy.paper"] == 65.29 and metrics["test.accuracy.delta"] == 0.0
    assert metrics["dev.accuracy.paper"] == 65.04 and metrics["dev.accuracy.delta"] == pytest.approx(-5.04)
    assert metrics["test.accuracy.ci_low"] == 61.5 and metrics["test.accuracy.ci_high"] == 68.25
    assert "dev.accuracy.ci_low" not in metrics  # a blank interval is not logged as NaN
    assert not any(name.startswith("semeval14_laptop") for name in metrics)
    # Sorted by name, as MLflow's columns are, each value comes first and its table cell follows it.
    assert [m for m in sorted(metrics) if not m.startswith("time.")] == [
        "dev.accuracy", "dev.accuracy.delta", "dev.accuracy.paper",
        "test.accuracy", "test.accuracy.ci_high", "test.accuracy.ci_low", "test.accuracy.delta", "test.accuracy.paper",
    ]
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
    assert earn.data.metrics["test.average_precision.delta"] == pytest.approx(-0.91)
    assert by_name["acq/BoW-TFIDF"].data.metrics["test.average_precision.paper"] == 99.61
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
    for table, expected in (("baselines", {"test.mae_macro.ci_low": 1.9}),
                            ("ordinal", {"test.mae_macro.ci_low": 1.1, "test.mae_macro.paper": 1.2})):
        record = {"paper": "ordinal", "table": table, "dataset": "reviews_hotel", "system": "Triv", "rows": rows}
        entry, children = record_entries(record, cells)
        assert children == [] and entry.tags == {"table": table}
        assert {k: v for k, v in entry.metrics.items() if k.endswith((".ci_low", ".paper"))} == expected


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
    assert children[1].metrics == {"test.mae_macro": 0.85, "test.mae_macro.ci_low": 0.8} and parent.metrics == {}
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
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        log_records([_record(tmp_path, "anygram", "sst", "Triv", rows)], tracking_uri=uri, artifact_root=tmp_path / "a",
                    prepared_dir=prepared)
    # MLflow's warnings on a local source and on integer columns do not apply to a logged input: not in the job's log.
    messages = [str(w.message) for w in caught]
    assert not [m for m in messages if "dataset source" in m or "integer column" in m], messages
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
    assert logged.name == "sst-UniLSTM-seed1"  # dataset, system, seed
    [version] = MlflowClient(tracking_uri=uri).search_model_versions("name = 'sst-UniLSTM-seed1'")
    assert version.run_id == run.info.run_id and int(version.version) == 1
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


def test_experiments_are_model_training_experiments_with_a_description_and_no_empty_default(tmp_path):
    from mlflow.entities import ViewType

    rows = [{"dataset": "sst", "split": "test", "metric": "accuracy", "value": 0.4}]
    uri = default_tracking_uri(tmp_path)
    client = MlflowClient(tracking_uri=uri)
    assert [e.name for e in client.search_experiments()] == ["Default"]  # every new store has it
    log_records([_record(tmp_path, "anygram", "sst", "Triv", rows)], tracking_uri=uri, artifact_root=tmp_path / "a")
    [experiment] = client.search_experiments()  # active ones: the Default experiment is gone from view
    assert experiment.name == "kernbench-anygram"
    assert experiment.tags["mlflow.experimentKind"] == "custom_model_development"
    note = experiment.tags["mlflow.note.content"]
    assert "Kaljahi & Foster, Table 3" in note and "test.accuracy.delta" in note and "tags.dataset" in note
    assert "Default" in [e.name for e in client.search_experiments(view_type=ViewType.DELETED_ONLY)]


def test_a_default_experiment_holding_runs_stays(tmp_path):
    uri = default_tracking_uri(tmp_path)
    client = MlflowClient(tracking_uri=uri)
    client.create_run("0", run_name="a user's run")
    rows = [{"dataset": "sst", "split": "test", "metric": "accuracy", "value": 0.4}]
    log_records([_record(tmp_path, "anygram", "sst", "Triv", rows)], tracking_uri=uri, artifact_root=tmp_path / "a")
    assert sorted(e.name for e in client.search_experiments()) == ["Default", "kernbench-anygram"]


def test_an_older_experiment_gets_the_kind_and_description(tmp_path):
    uri = default_tracking_uri(tmp_path)
    client = MlflowClient(tracking_uri=uri)
    client.create_experiment("kernbench-fisher")
    rows = [{"dataset": "reuters", "split": "test", "metric": "average_precision", "value": 0.9}]
    log_records([_record(tmp_path, "fisher", "reuters", "Triv", rows)], tracking_uri=uri, artifact_root=tmp_path / "a")
    tags = client.get_experiment_by_name("kernbench-fisher").tags
    assert tags["mlflow.experimentKind"] == "custom_model_development"
    assert "Saunders, Shawe-Taylor & Vinokourov, Table 1" in tags["mlflow.note.content"]


def test_runs_of_one_dataset_have_the_same_metric_columns(tmp_path):
    rows = lambda value: [{"dataset": "semeval14_laptop", "split": s, "metric": "accuracy", "value": value}
                          for s in ("dev", "test")]
    paths = [_record(tmp_path, "anygram", "semeval14_laptop", system, rows(v))
             for system, v in (("AGKwess", 0.65), ("AGKsm", 0.53))]
    csv = _table(tmp_path, paths, "anygram")
    uri = default_tracking_uri(tmp_path)
    log_records(paths, tracking_uri=uri, artifact_root=tmp_path / "a", table_paths=[csv])
    client, _ = _runs(uri, "anygram")
    found = client.search_runs([client.get_experiment_by_name("kernbench-anygram").experiment_id],
                               filter_string="tags.dataset = 'semeval14_laptop'")
    assert sorted(r.data.tags["system"] for r in found) == ["AGKsm", "AGKwess"]
    columns = [sorted(r.data.metrics) for r in found]
    assert columns[0] == columns[1] and "test.accuracy.delta" in columns[0]
    agksm = next(r for r in found if r.data.tags["system"] == "AGKsm").data.metrics
    assert agksm["test.accuracy.paper"] == 63.15 and agksm["test.accuracy.delta"] == pytest.approx(53.0 - 63.15)


def _benchmark(results, job, wall, cpu, rss):
    path = results / "benchmarks" / "jobs" / f"{job}.tsv"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
                    f"{wall}\t0:00:01\t{rss}\t1\t1\t1\t0\t0\t0\t{cpu}\n")


def test_anygram_runs_carry_the_time_and_memory_of_their_gram_jobs(tmp_path):
    results = tmp_path / "results"
    record = results / "runs" / "anygram" / "sst" / "kernels" / "AGKwest.json"
    record.parent.mkdir(parents=True)
    rows = [{"dataset": "sst", "split": "test", "metric": "accuracy", "value": 0.4}]
    _record(tmp_path, "anygram", "sst", "AGKwest", rows).rename(record)
    # The SVC job of the dataset's agk systems, and another dataset's, which is not this run's.
    _benchmark(results, "anygram_svm_agk/runs/anygram/sst/kernels/agk", 1.5, 1.25, 300)
    _benchmark(results, "anygram_svm_agk/runs/anygram/semeval14_laptop/kernels/agk", 99, 99, 5000)
    for theta, (wall, rss) in {"0.8": (40.0, 900), "1": (60.25, 1200)}.items():
        for tile in (0, 1):  # a tiled Gram matrix: its tiles, then its assembly
            _benchmark(results, f"anygram_gram_tile/cache/anygram/sst/AGKwest_lam0.4_theta{theta}/train_{tile}",
                       wall, wall, rss)
        _benchmark(results, f"anygram_gram_assemble/cache/anygram/sst/AGKwest_lam0.4_theta{theta}", 2.0, 2.0, 500)
    # Another dataset's and another setting's Gram jobs are not this run's.
    _benchmark(results, "anygram_gram/cache/anygram/semeval14_laptop/AGKwest_lam0.4_theta0.8", 99, 99, 5000)
    _benchmark(results, "anygram_gram/cache/anygram/sst/AGKwest_lam0.4_theta0.85", 99, 99, 5000)
    inputs = {str(record): {"job": ["runs/anygram/sst/kernels/agk"],
                            "gram": ["cache/anygram/sst/AGKwest_lam0.4_theta0.8", "cache/anygram/sst/AGKwest_lam0.4_theta1"]}}
    uri = default_tracking_uri(tmp_path)
    log_records([record], tracking_uri=uri, artifact_root=tmp_path / "a", results_dir=results, cost_inputs=inputs)
    _, runs = _runs(uri, "anygram")
    metrics = next(r for r in runs if r.data.tags.get("kind") != "summary").data.metrics
    assert {k: v for k, v in metrics.items() if k.startswith("cost.")} == {
        "cost.job.jobs": 1.0, "cost.job.wall_s": 1.5, "cost.job.cpu_s": 1.25, "cost.job.peak_rss_mb": 300.0,
        "cost.gram.jobs": 6.0, "cost.gram.wall_s": 2 * 40.0 + 2 * 60.25 + 4.0, "cost.gram.cpu_s": 204.5,
        "cost.gram.peak_rss_mb": 1200.0,
        "cost.total.jobs": 7.0, "cost.total.wall_s": 206.0, "cost.total.cpu_s": 205.75, "cost.total.peak_rss_mb": 1200.0,
    }


def test_summary_run_logs_the_sensitivity_significance_and_claims_tables(tmp_path):
    import mlflow

    from kernbench.report.tracking import log_summaries

    tables = tmp_path / "tables"
    tables.mkdir()
    pd.DataFrame({"paper": ["ordinal", "anygram"], "choice": ["ordinal.a", "anygram.lam"], "delta": [0.1, -2.0]}).to_csv(
        tables / "sensitivity.csv", index=False)
    pd.DataFrame({"paper": ["anygram", "ordinal"], "system_a": ["AGKsm", "PRP"], "p_bootstrap": [0.01, 0.5]}).to_csv(
        tables / "significance.csv", index=False)
    pd.DataFrame({"dataset": ["reviews_hotel"], "claim": [1], "answer": ["yes"]}).to_csv(
        tables / "ordinal_claims.csv", index=False)
    uri = default_tracking_uri(tmp_path)
    paths = sorted(tables.glob("*.csv"))
    manifest = log_summaries(["anygram", "ordinal"], tracking_uri=uri, artifact_root=tmp_path / "a", table_paths=paths)
    assert [m["run_name"] for m in manifest] == ["anygram summary", "ordinal summary"]
    mlflow.set_tracking_uri(uri)
    client = MlflowClient(tracking_uri=uri)
    logged = {}
    for entry in manifest:
        run = client.get_run(entry["run_id"])
        logged[entry["run_name"]] = {a.path for a in client.list_artifacts(entry["run_id"], "tables")}
        if entry["run_name"] == "ordinal summary":
            sensitivity = client.load_table(run.info.experiment_id, "tables/sensitivity.json", run_ids=[entry["run_id"]])
            claims = client.load_table(run.info.experiment_id, "tables/ordinal_claims.json", run_ids=[entry["run_id"]])
    assert logged == {
        "anygram summary": {"tables/sensitivity.json", "tables/significance.json"},
        "ordinal summary": {"tables/ordinal_claims.json", "tables/sensitivity.json", "tables/significance.json"},
    }
    assert sensitivity["choice"].tolist() == ["ordinal.a"] and claims["answer"].tolist() == ["yes"]
