"""The fisher-features / fisher-svm commands on a small synthetic corpus."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import average_precision_score, precision_score, recall_score

from kernbench.cli import main
from kernbench.metrics import thresholded_average_precision
from kernbench.papers.fisher.experiment import SYSTEMS, build_features, load_features, select_documents

PARAMS = {
    "documents": "all",
    "lowercase": True,
    "collapse_whitespace": True,
    "k": 3,
    "min_count": 2,
    "t": 2,
    "c": 1.0,
    "max_state_length": None,
}
SVM = {"C": 1.0, "solver": "liblinear", "loss": "squared_hinge", "intercept_scaling": 1.0, "max_iter": 5000}


def _corpus() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    grain = ["wheat harvest", "corn exports", "grain silo", "wheat tonnes"]
    money = ["dollar rate", "yen falls", "bank rate cut", "currency market"]
    other = ["annual meeting", "board elects", "stock split"]
    rows = []
    for i in range(80):
        # Every seventh document has no topic and words of its own.
        topic = [] if i % 7 == 0 else ["grain"] if i % 2 else ["money-fx"]
        words = rng.choice(other if i % 7 == 0 else grain if i % 2 else money, 3)
        rows.append(
            {
                "id": f"reuters-{i}",
                "split": "train" if i < 56 else "test",
                "label": topic,
                "title": str(words[0]).upper(),
                "body": " ".join(words) + "  Reuter",
            }
        )
    frame = pd.DataFrame(rows)
    frame["text"] = frame["title"] + "\n" + frame["body"]
    return frame


@pytest.fixture
def prepared(tmp_path):
    path = tmp_path / "reuters.parquet"
    _corpus().to_parquet(path, index=False)
    return path


@pytest.mark.parametrize("system", list(SYSTEMS))
def test_every_system_gives_unit_rows_with_training_columns(system):
    features, train_ids, test_ids = build_features(_corpus(), system, PARAMS)
    assert features.train.shape == (56, features.test.shape[1]) and features.test.shape[0] == 24
    norms = np.sqrt(features.train.multiply(features.train).sum(axis=1)).A1
    np.testing.assert_allclose(norms, 1.0)
    assert train_ids[0] == "reuters-0" and test_ids[0] == "reuters-56"


def test_document_subsets():
    frame = _corpus()
    assert len(select_documents(frame, "all")) == 80
    with_topics = select_documents(frame, "with_topics")
    assert len(with_topics) == 80 - len(range(0, 80, 7))
    assert len(select_documents(frame, "top10")) == len(with_topics)  # grain and money-fx are both top-10
    with pytest.raises(ValueError, match="document set"):
        select_documents(frame, "some")


def test_commands_write_cache_and_record(prepared, tmp_path):
    cache, info = tmp_path / "cache/FSA-ln.npz", tmp_path / "cache/FSA-ln.json"
    assert (
        main(
            [
                "fisher-features",
                "--system",
                "FSA-ln",
                "--prepared",
                str(prepared),
                "--params",
                json.dumps(PARAMS),
                "--out",
                str(cache),
                "--info",
                str(info),
            ]
        )
        == 0
    )
    x_train, _, _, test_ids = load_features(cache)
    assert x_train.shape[0] == 56 and len(test_ids) == 24
    assert json.loads(info.read_text())["states"] > 1

    record_path = tmp_path / "runs/FSA-ln/grain.json"
    predictions_path = tmp_path / "runs/FSA-ln/grain.predictions.parquet"
    assert (
        main(
            [
                "fisher-svm",
                "--system",
                "FSA-ln",
                "--category",
                "grain",
                "--prepared",
                str(prepared),
                "--features",
                str(cache),
                "--features-info",
                str(info),
                "--params",
                json.dumps(SVM),
                "--seed",
                "3",
                "--profile",
                "smoke",
                "--record",
                str(record_path),
                "--predictions",
                str(predictions_path),
            ]
        )
        == 0
    )
    record = json.loads(record_path.read_text())
    assert record["paper"] == "fisher" and record["dataset"] == "reuters" and record["system"] == "FSA-ln"
    rows = {r["metric"]: r for r in record["rows"]}
    assert set(rows) == {"average_precision", "average_precision_ranking", "precision", "recall", "f1"}
    assert all(r["dataset"] == "grain" and r["split"] == "test" for r in rows.values())
    predictions = pd.read_parquet(predictions_path)
    assert rows["average_precision_ranking"]["value"] == pytest.approx(
        average_precision_score(predictions["y_true"], predictions["score"])
    )
    assert rows["average_precision"]["value"] == pytest.approx(
        thresholded_average_precision(predictions["y_true"], predictions["score"])
    )
    assert record["params"]["c"] == 1.0 and "c_cv" not in record["params"]  # c fixed in PARAMS
    assert "grid_choices" not in record  # nothing chosen from a grid
    weights = record["params"]["weights"]  # the range of -ln p over the training features
    assert weights["weight"] == "-ln p" and 0 < weights["min"] < weights["max"]
    assert "weights" not in record["params"]["features"]
    assert rows["precision"]["value"] == pytest.approx(precision_score(predictions["y_true"], predictions["y_pred"]))
    assert rows["recall"]["value"] == pytest.approx(recall_score(predictions["y_true"], predictions["y_pred"]))
    assert rows["average_precision"]["value"] > 0.9  # the two topics use disjoint words


def test_corrupt_cache_stops_naming_the_file_and_writes_no_record(prepared, tmp_path, capsys):
    cache = tmp_path / "bad.npz"
    cache.write_bytes(b"not a zip")
    info = tmp_path / "bad.json"
    info.write_text("{}")
    record = tmp_path / "record.json"
    code = main(
        [
            "fisher-svm",
            "--system",
            "FSA-ln",
            "--category",
            "grain",
            "--prepared",
            str(prepared),
            "--features",
            str(cache),
            "--features-info",
            str(info),
            "--params",
            json.dumps(SVM),
            "--seed",
            "3",
            "--profile",
            "smoke",
            "--record",
            str(record),
            "--predictions",
            str(tmp_path / "p.parquet"),
        ]
    )
    assert code == 1
    assert "bad.npz" in capsys.readouterr().err
    assert not record.exists() and not (tmp_path / "p.parquet").exists()


def test_category_without_training_positives_is_a_clear_error(prepared, tmp_path, capsys):
    cache, info = tmp_path / "f.npz", tmp_path / "f.json"
    main(
        [
            "fisher-features",
            "--system",
            "BoW-TFIDF",
            "--prepared",
            str(prepared),
            "--params",
            json.dumps(PARAMS),
            "--out",
            str(cache),
            "--info",
            str(info),
        ]
    )
    code = main(
        [
            "fisher-svm",
            "--system",
            "BoW-TFIDF",
            "--category",
            "ship",
            "--prepared",
            str(prepared),
            "--features",
            str(cache),
            "--features-info",
            str(info),
            "--params",
            json.dumps(SVM),
            "--seed",
            "3",
            "--profile",
            "smoke",
            "--record",
            str(tmp_path / "r.json"),
            "--predictions",
            str(tmp_path / "p.parquet"),
        ]
    )
    assert code == 1
    assert "all out of the category" in capsys.readouterr().err


def test_one_svm_job_trains_every_category_as_separate_jobs_would(prepared, tmp_path):
    cache, info = tmp_path / "f.npz", tmp_path / "f.json"
    assert main(["fisher-features", "--system", "ngram-ln", "--prepared", str(prepared), "--params",
                 json.dumps(PARAMS), "--out", str(cache), "--info", str(info)]) == 0
    svm = {**SVM, "solver": "libsvm", "loss": "hinge"}

    def svm_job(categories, record, predictions):
        return main(["fisher-svm", "--system", "ngram-ln", "--category", *categories, "--prepared", str(prepared),
                     "--features", str(cache), "--features-info", str(info), "--params", json.dumps(svm),
                     "--seed", "3", "--profile", "smoke", "--record", record, "--predictions", predictions])

    assert svm_job(["grain", "money-fx"], str(tmp_path / "all/{category}.json"),
                   str(tmp_path / "all/{category}.parquet")) == 0
    for category in ("grain", "money-fx"):
        alone = tmp_path / f"alone-{category}.json"
        assert svm_job([category], str(alone), str(tmp_path / f"alone-{category}.parquet")) == 0
        together = json.loads((tmp_path / f"all/{category}.json").read_text())
        assert together["rows"] == json.loads(alone.read_text())["rows"]
        assert together["rows"][0]["dataset"] == category
        assert pd.read_parquet(tmp_path / f"all/{category}.parquet")["category"].eq(category).all()
    # several categories into one record path would overwrite each other
    assert svm_job(["grain", "money-fx"], str(tmp_path / "one.json"), str(tmp_path / "one.parquet")) == 1
    assert not (tmp_path / "one.json").exists()


def test_one_job_of_several_systems_writes_what_a_job_per_system_writes(prepared, tmp_path):
    systems = ["ngram-ln", "BoW-TFIDF"]

    def features(names, out, info):
        return main(["fisher-features", "--system", *names, "--prepared", str(prepared), "--params", json.dumps(PARAMS),
                     "--out", out, "--info", info])

    def svm(names, features, info, record, predictions):
        return main(["fisher-svm", "--system", *names, "--category", "grain", "money-fx", "--prepared", str(prepared),
                     "--features", features, "--features-info", info, "--params", json.dumps(SVM), "--seed", "3",
                     "--profile", "smoke", "--record", record, "--predictions", predictions])

    both = tmp_path / "both"
    assert features(systems, f"{both}/{{system}}.npz", f"{both}/{{system}}.json") == 0
    assert svm(systems, f"{both}/{{system}}.npz", f"{both}/{{system}}.json", f"{both}/{{system}}/{{category}}.json",
               f"{both}/{{system}}/{{category}}.parquet") == 0
    for system in systems:
        alone = tmp_path / system
        assert features([system], f"{alone}.npz", f"{alone}.json") == 0
        assert svm([system], f"{alone}.npz", f"{alone}.json", f"{alone}/{{category}}.json",
                   f"{alone}/{{category}}.parquet") == 0
        for category in ("grain", "money-fx"):
            together, single = (json.loads((d / f"{category}.json").read_text()) for d in (both / system, alone))
            assert together["system"] == system and together["rows"] == single["rows"]
            assert together["run_key"] == single["run_key"]
            pd.testing.assert_frame_equal(pd.read_parquet(both / system / f"{category}.parquet"),
                                          pd.read_parquet(alone / f"{category}.parquet"))
    # Several systems into one feature cache would overwrite each other: refused, nothing written.
    assert features(systems, str(tmp_path / "one.npz"), str(tmp_path / "one.json")) == 1
    assert not (tmp_path / "one.npz").exists()


def test_features_command_chooses_c_by_cross_validation_and_the_record_keeps_it(prepared, tmp_path):
    cache, info = tmp_path / "f.npz", tmp_path / "f.json"
    cv = {**PARAMS, "c": "cv", "c_grid": [1, 100], "cv_folds": 3, "categories": ["grain", "money-fx"], **SVM}
    args = ["fisher-features", "--system", "ngram-ln", "--prepared", str(prepared), "--params", json.dumps(cv),
            "--seed", "5", "--out", str(cache), "--info", str(info)]
    assert main(args) == 0
    built = json.loads(info.read_text())
    assert built["c"] in (1.0, 100.0) and built["c_cv"]["grid"] == [1.0, 100.0]
    assert set(built["c_cv"]["scores"]) == {"1", "100"}
    record = tmp_path / "r.json"
    assert main(["fisher-svm", "--system", "ngram-ln", "--category", "grain", "--prepared", str(prepared),
                 "--features", str(cache), "--features-info", str(info), "--params", json.dumps(SVM), "--seed", "5",
                 "--profile", "smoke", "--record", str(record), "--predictions", str(tmp_path / "p.parquet")]) == 0
    written = json.loads(record.read_text())
    params = written["params"]
    assert params["c"] == built["c"] and params["c_cv"]["scores"] == built["c_cv"]["scores"]
    assert "c" not in params["features"]
    assert written["grid_choices"] == {"c": {"value": built["c"], "grid": [1.0, 100.0]}}
    assert params["weights"] == built["weights"] and params["weights"]["weight"] == "-ln p"


def test_svm_and_sensitivity_jobs_compute_their_grams_on_the_threads_they_are_given(prepared, tmp_path, monkeypatch):
    # numba's default is one thread per core: a one-thread job left there would run the parallel Gram build
    # beside the job that Snakemake starts on the other core.
    import numba

    from kernbench.papers.fisher import experiment

    threads_at_gram, sparse_linear_gram = [], experiment.sparse_linear_gram

    def gram(*args):
        threads_at_gram.append(numba.get_num_threads())
        return sparse_linear_gram(*args)

    monkeypatch.setattr(experiment, "sparse_linear_gram", gram)
    cache, info, record = tmp_path / "ngram-ln.npz", tmp_path / "ngram-ln.json", tmp_path / "grain.json"
    params = {**PARAMS, **SVM, "solver": "libsvm", "loss": "hinge", "c_grid": [1, 10], "categories": ["grain"],
              "sensitivity": {"loss_systems": ["ngram-ln"]}}
    assert main(["fisher-features", "--system", "ngram-ln", "--prepared", str(prepared), "--params", json.dumps(params),
                 "--out", str(cache), "--info", str(info), "--threads", "1"]) == 0
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    assert main(["fisher-svm", "--system", "ngram-ln", "--category", "grain", "--prepared", str(prepared),
                 "--features", str(cache), "--features-info", str(info), "--params", json.dumps(params),
                 "--seed", "3", "--profile", "smoke", "--threads", "1", "--record", str(record),
                 "--predictions", str(tmp_path / "grain.parquet")]) == 0  # fmt: skip
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    assert main(["fisher-sensitivity", "--choice", "c", "--prepared", str(prepared), "--records", str(record),
                 "--params", json.dumps(params), "--resamples", "100", "--seed", "3", "--threads", "1",
                 "--out", str(tmp_path / "fisher.c.csv")]) == 0  # fmt: skip
    assert len(threads_at_gram) == 2 * 2  # train and test Grams: the main run, then c = 10
    assert set(threads_at_gram) == {1}
