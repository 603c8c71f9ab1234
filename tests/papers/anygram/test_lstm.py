"""UniLSTM / BiLSTM: Table 4 architectures, masking, seeded training on real data, the command."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import yaml

from kernbench.cli import main
from kernbench.errors import KernbenchError
from kernbench.papers.anygram import lstm
from tests.conftest import REPO_ROOT, glove_for

#: Table 4 of Kaljahi & Foster, transcribed from the paper: (batch, layers, units, lr, dropout).
TABLE4 = {
    ("semeval14_laptop", "UniLSTM"): (40, 1, 50, 0.001, 0.3),
    ("semeval14_laptop", "BiLSTM"): (20, 1, 100, 0.001, 0.0),
    ("semeval14_restaurant", "UniLSTM"): (40, 3, 150, 0.001, 0.3),
    ("semeval14_restaurant", "BiLSTM"): (20, 1, 100, 0.001, 0.3),
    ("sst", "UniLSTM"): (40, 1, 100, 0.01, 0.3),
    ("sst", "BiLSTM"): (30, 2, 100, 0.001, 0.5),
}
N_CLASSES = {"semeval14_laptop": 4, "semeval14_restaurant": 4, "sst": 5}


@pytest.fixture(scope="module", autouse=True)
def tensorflow_setup():
    lstm.configure_tensorflow(1)


@pytest.fixture(scope="module")
def lstm_config():
    return yaml.safe_load((REPO_ROOT / "config.yaml").read_text())["lstm"]


@pytest.fixture(scope="module")
def laptop_vectors(laptop):
    vocabulary, matrix = glove_for(laptop)
    return vocabulary, matrix


def _lstm_params(inputs, units):
    """Weights of one Keras LSTM: four gates, each with input and recurrent kernels and a bias."""
    return 4 * (units * (inputs + units) + units)


@pytest.mark.parametrize(("dataset", "system"), sorted(TABLE4))
def test_table4_configuration_builds_the_architecture_it_names(lstm_config, dataset, system):
    import keras

    settings = lstm.resolve_settings(lstm_config, dataset, system)
    batch, layers, units, lr, dropout = TABLE4[dataset, system]
    assert (settings["batch_size"], settings["layers"], settings["hidden_size"]) == (batch, layers, units)
    assert settings["learning_rate"] == pytest.approx(lr) and settings["dropout"] == pytest.approx(dropout)

    dim, aspect = 50, dataset != "sst"
    matrix = lstm.embedding_matrix(np.random.default_rng(0).normal(size=(30, dim)).astype(np.float32))
    model = lstm.build_model(
        matrix,
        n_classes=N_CLASSES[dataset],
        bidirectional=system == "BiLSTM",
        layers=settings["layers"],
        hidden_size=settings["hidden_size"],
        dropout=settings["dropout"],
        learning_rate=settings["learning_rate"],
        aspect=aspect,
        trainable_embeddings=settings["trainable_embeddings"],
    )
    wrappers = [layer for layer in model.layers if isinstance(layer, keras.layers.Bidirectional)]
    if system == "BiLSTM":
        assert len(wrappers) == layers
        cells = [w.forward_layer for w in wrappers] + [w.backward_layer for w in wrappers]
        assert all(w.backward_layer.go_backwards for w in wrappers)
    else:
        assert not wrappers
        cells = [layer for layer in model.layers if isinstance(layer, keras.layers.LSTM)]
        assert len(cells) == layers
    assert all(c.units == units and c.activation.__name__ == "tanh" for c in cells)
    # Stacked layers pass whole sequences up; the last one gives the sentence vector.
    assert [c.return_sequences for c in cells[:layers]] == [True] * (layers - 1) + [False]

    directions = 2 if system == "BiLSTM" else 1
    inputs = [dim + aspect] + [directions * units] * (layers - 1)
    assert model.count_params() - matrix.size == sum(directions * _lstm_params(i, units) for i in inputs) + (
        directions * units + 1
    ) * N_CLASSES[dataset]

    drop = [layer for layer in model.layers if isinstance(layer, keras.layers.Dropout)]
    assert len(drop) == 1 and drop[0].rate == pytest.approx(dropout)
    assert model.layers[-2] is drop[0]  # dropout right before the output
    out = model.layers[-1]
    assert out.units == N_CLASSES[dataset] and out.activation.__name__ == "softmax"
    emb = model.get_layer("embedding")
    assert settings["trainable_embeddings"] and emb.trainable  # the config default: Keras trains its Embedding
    np.testing.assert_array_equal(emb.get_weights()[0], matrix)
    assert [i.name for i in model.inputs] == (["tokens", "aspect"] if aspect else ["tokens"])
    assert float(model.optimizer.learning_rate) == pytest.approx(lr)
    assert model.loss == "sparse_categorical_crossentropy"


def test_resolve_settings_caps_hidden_size_and_names_bad_entries(lstm_config):
    capped = lstm.resolve_settings({**lstm_config, "max_hidden_size": 8}, "semeval14_restaurant", "UniLSTM")
    assert capped["hidden_size"] == 8 and capped["layers"] == 3
    assert lstm.resolve_settings({**lstm_config, "max_hidden_size": 500}, "sst", "BiLSTM")["hidden_size"] == 100
    with pytest.raises(KernbenchError, match="lstm.hyperparameters.reuters.UniLSTM"):
        lstm.resolve_settings(lstm_config, "reuters", "UniLSTM")
    broken = {**lstm_config, "hyperparameters": {"sst": {"BiLSTM": {"batch_size": 30}}}}
    with pytest.raises(KernbenchError, match="sst.BiLSTM lacks layers, hidden_size"):
        lstm.resolve_settings(broken, "sst", "BiLSTM")
    with pytest.raises(KernbenchError, match="unknown system"):
        lstm.resolve_settings(lstm_config, "sst", "GRU")


def test_planned_runs_follow_the_datasets_and_seeds_of_the_config(lstm_config):
    config = {"datasets": ["sst", "reuters"], "lstm": {**lstm_config, "seeds": [3, 1]}}
    assert lstm.planned_runs(config) == [("sst", "UniLSTM", 3), ("sst", "UniLSTM", 1), ("sst", "BiLSTM", 3), ("sst", "BiLSTM", 1)]


def test_tokens_map_to_embedding_rows_by_lookup_key():
    words = np.array(["a", "b/c", "the"])
    ids = lstm.encode_tokens([["The", "b\\/c", "zzz", "a"], []], words, cased=False)
    np.testing.assert_array_equal(ids[0], [3, 2, 4, 1])  # 0 is padding, 4 the zero row of unknown words
    assert len(ids[1]) == 0
    matrix = lstm.embedding_matrix(np.arange(6, dtype=np.float32).reshape(3, 2))
    np.testing.assert_array_equal(matrix, [[0, 0], [0, 1], [2, 3], [4, 5], [0, 0]])
    batch = lstm.pad_batch([np.array([3, 2]), np.array([1])], [np.array([0, 1]), np.array([1])])
    np.testing.assert_array_equal(batch["tokens"], [[3, 2], [1, 0]])
    np.testing.assert_array_equal(batch["aspect"][..., 0], [[0, 1], [1, 0]])


@pytest.mark.parametrize("bidirectional", [False, True])
def test_padding_is_masked(bidirectional):
    import keras

    keras.utils.set_random_seed(5)
    matrix = lstm.embedding_matrix(np.random.default_rng(1).normal(size=(20, 6)).astype(np.float32))
    model = lstm.build_model(
        matrix, n_classes=3, bidirectional=bidirectional, layers=2, hidden_size=4, dropout=0.3, learning_rate=0.01, aspect=True
    )
    short, long_ = np.array([4, 7, 2], dtype=np.int32), np.arange(1, 12, dtype=np.int32)
    marks_short, marks_long = np.array([0, 1, 0]), np.zeros(11)
    alone = model(lstm.pad_batch([short], [marks_short])).numpy()
    padded = model(lstm.pad_batch([short, long_], [marks_short, marks_long])).numpy()
    np.testing.assert_allclose(padded[0], alone[0], rtol=1e-5, atol=1e-6)
    # The aspect mark reaches the model: moving it changes the output.
    moved = model(lstm.pad_batch([short], [np.array([1, 0, 0])])).numpy()
    assert np.abs(moved - alone).max() > 1e-6


def _padded_steps(batches, lengths):
    return sum(len(b) * lengths[b].max() for b in batches)


_XLA_MODEL = """
import numpy as np
from kernbench.papers.anygram import lstm
lstm.configure_tensorflow(1, deterministic={deterministic})
matrix = lstm.embedding_matrix(np.zeros((5, 3), dtype=np.float32))
model = lstm.build_model(matrix, n_classes=2, bidirectional=False, layers=1, hidden_size=2, dropout=0.0,
                         learning_rate=0.01, aspect=False, jit_compile=True)
print("jit_compile", model.jit_compile)
"""


@pytest.mark.parametrize(("deterministic", "compiled"), [(True, False), (False, True)])
def test_xla_is_compiled_only_with_op_determinism_off(deterministic, compiled):
    """Keras turns a requested XLA off under op determinism (every LSTM job's setting); the benchmark needs it off."""
    run = subprocess.run(
        [sys.executable, "-c", _XLA_MODEL.format(deterministic=deterministic)], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split()[-2:] == ["jit_compile", str(compiled)]
    assert ("Proceeding with `jit_compile=False`" in run.stderr) is not compiled


def test_epoch_batches_sort_pools_by_length_and_keep_every_sentence_once():
    lengths = np.random.default_rng(3).integers(1, 60, size=1003)
    batches = lstm.epoch_batches(lengths, 20, bucket_batches=10, rng=np.random.default_rng([7, 0]))
    assert sorted(np.concatenate(batches).tolist()) == list(range(1003))
    assert sorted(len(b) for b in batches) == [3] + [20] * 50
    # Seeded: the same generator state gives the same epoch, the next epoch's state another one.
    again = lstm.epoch_batches(lengths, 20, bucket_batches=10, rng=np.random.default_rng([7, 0]))
    assert all(np.array_equal(a, b) for a, b in zip(batches, again, strict=True))
    other = lstm.epoch_batches(lengths, 20, bucket_batches=10, rng=np.random.default_rng([7, 1]))
    assert not all(np.array_equal(a, b) for a, b in zip(batches, other, strict=True))
    # Within a batch lengths are close, so far fewer padded steps than a plain shuffle needs.
    plain = lstm.epoch_batches(lengths, 20, bucket_batches=1, rng=np.random.default_rng([7, 0]))
    assert _padded_steps(batches, lengths) < 0.7 * _padded_steps(plain, lengths)
    # A batch comes from one pool of 10 batches: its sentences sit in one 200-wide slice of the shuffle.
    shuffled = np.random.default_rng([7, 0]).permutation(1003)
    pool_of = np.empty(1003, dtype=int)
    pool_of[shuffled] = np.arange(1003) // 200
    assert all(len(set(pool_of[b])) == 1 for b in batches)


def test_epoch_batches_with_one_batch_per_pool_is_the_plain_seeded_shuffle():
    lengths = np.random.default_rng(4).integers(1, 30, size=95)
    batches = lstm.epoch_batches(lengths, 10, bucket_batches=1, rng=np.random.default_rng(11))
    order = np.random.default_rng(11).permutation(95)
    assert [b.tolist() for b in batches] == [order[i : i + 10].tolist() for i in range(0, 95, 10)]


def test_training_batches_come_without_autotuning_in_the_seeded_order():
    # Autotuning's thread kept two LSTM jobs side by side off the CPU; it must stay off, and the batches
    # must still be the seeded plan padded, epoch after epoch.
    rng = np.random.default_rng(3)
    ids = [rng.integers(1, 50, size=n).astype(np.int32) for n in rng.integers(1, 12, size=23)]
    labels = rng.integers(0, 3, size=23).astype(np.int32)
    dataset = lstm._dataset(ids, None, labels, 5, shuffle_seed=9, bucket_batches=1)
    assert dataset.options().autotune.enabled is False
    lengths = np.array([len(s) for s in ids])
    for epoch in range(2):
        plan = lstm.epoch_batches(lengths, 5, bucket_batches=1, rng=np.random.default_rng([9, epoch]))
        got = [(x.numpy(), y.numpy()) for x, y in dataset]
        assert len(got) == len(plan)
        for (x, y), idx in zip(got, plan):
            np.testing.assert_array_equal(x, lstm.pad_batch([ids[i] for i in idx], None))
            np.testing.assert_array_equal(y, labels[idx])


def test_predictions_come_back_in_input_order():
    import keras

    keras.utils.set_random_seed(2)
    matrix = lstm.embedding_matrix(np.random.default_rng(5).normal(size=(30, 6)).astype(np.float32))
    model = lstm.build_model(
        matrix, n_classes=3, bidirectional=True, layers=1, hidden_size=4, dropout=0.0, learning_rate=0.01, aspect=False
    )
    rng = np.random.default_rng(6)
    ids = [rng.integers(1, 31, size=n).astype(np.int32) for n in (9, 2, 14, 5, 5, 1, 11)]
    alone = np.vstack([model(lstm.pad_batch([s], None)).numpy() for s in ids])
    np.testing.assert_allclose(lstm.predict_proba(model, ids, None, batch_size=3), alone, rtol=1e-5, atol=1e-6)


@pytest.mark.slow
def test_seeded_training_on_laptop_beats_the_majority_class(laptop, laptop_vectors):
    words, vectors = laptop_vectors
    settings = {"batch_size": 20, "layers": 1, "hidden_size": 32, "learning_rate": 0.003, "dropout": 0.0}
    result = lstm.train_lstm(
        laptop, words, vectors, cased=False, system="BiLSTM", settings={**settings, "max_epochs": 6, "patience": 6, "trainable_embeddings": True, "bucket_batches": 1}, seed=7, dataset="semeval14_laptop"
    )
    train, test = laptop[laptop["split"] == "train"], laptop[laptop["split"] == "test"]
    majority = (test["label"] == train["label"].mode()[0]).mean()
    assert majority == pytest.approx(341 / 654)
    preds = result.predictions[result.predictions["split"] == "test"]
    accuracy = (preds["y_true"] == preds["y_pred"]).mean()
    row = next(r for r in result.rows if (r["split"], r["metric"]) == ("test", "accuracy"))
    assert row["value"] == pytest.approx(accuracy)
    assert accuracy > majority + 0.04
    # Early stopping kept the best-dev epoch: its dev accuracy is the reported one.
    dev = next(r for r in result.rows if (r["split"], r["metric"]) == ("dev", "accuracy"))
    assert dev["value"] == pytest.approx(max(result.curves["val_accuracy"]), abs=1e-6)
    assert result.best_epoch == int(np.argmax(result.curves["val_accuracy"])) + 1
    assert len(result.curves["loss"]) == len(result.curves["val_loss"]) == 6


def _slice(frame, n):
    return pd.concat([frame[frame["split"] == s].head(n) for s in ("train", "dev", "test")], ignore_index=True)


_CLI_SETTINGS = {"batch_size": 16, "layers": 1, "hidden_size": 6, "learning_rate": 0.01, "dropout": 0.3, "max_epochs": 3,
                 "patience": 1, "trainable_embeddings": True, "bucket_batches": 2}


def _run_cli(tmp_path, name, prepared, npz, seed):
    out = tmp_path / name
    code = main(
        ["lstm", "--dataset", "semeval14_laptop", "--system", "BiLSTM", "--seed", str(seed), "--prepared", str(prepared),
         "--embeddings", str(npz), "--settings", json.dumps(_CLI_SETTINGS), "--profile", "test", "--threads", "1",
         "--record", str(out / "r.json"), "--predictions", str(out / "p.parquet"), "--model", str(out / "m.keras")]
    )  # fmt: skip
    assert code == 0
    return json.loads((out / "r.json").read_text()), pd.read_parquet(out / "p.parquet")


def test_batches_per_call_leave_the_training_as_it_is(laptop, laptop_vectors):
    # 120 training sentences in batches of 16: eight batches an epoch, run in calls of 3, 3 and 2.
    words, vectors = laptop_vectors
    frame = _slice(laptop, 120)
    results = [
        lstm.train_lstm(frame, words, vectors, cased=False, system="BiLSTM", settings=_CLI_SETTINGS, seed=11,
                        dataset="semeval14_laptop", steps_per_execution=steps)  # fmt: skip
        for steps in (1, 3)
    ]
    one, three = results
    assert len(one.curves["loss"]) == 3
    assert one.curves == three.curves and one.rows == three.rows
    pd.testing.assert_frame_equal(one.predictions, three.predictions)


def test_command_is_deterministic_and_saves_the_best_model(tmp_path, laptop, laptop_vectors):
    import keras

    frame = _slice(laptop, 120)
    prepared = tmp_path / "laptop.parquet"
    frame.to_parquet(prepared, index=False)
    npz = tmp_path / "emb.npz"
    np.savez(npz, words=laptop_vectors[0], vectors=laptop_vectors[1], cased=False)

    first, preds = _run_cli(tmp_path, "a", prepared, npz, seed=11)
    again, preds_again = _run_cli(tmp_path, "b", prepared, npz, seed=11)
    assert first["curves"] == again["curves"] and first["rows"] == again["rows"]
    pd.testing.assert_frame_equal(preds, preds_again)
    assert first["run_key"] == again["run_key"]

    # Both systems in one process, UniLSTM first: the BiLSTM is the one trained alone; without {system} in
    # the output paths the job is refused before it trains.
    settings = json.dumps(_CLI_SETTINGS)
    both = ["lstm", "--dataset", "semeval14_laptop", "--system", "UniLSTM", "BiLSTM", "--seed", "11",
            "--prepared", str(prepared), "--embeddings", str(npz), "--settings", settings, settings,
            "--profile", "test", "--threads", "1"]  # fmt: skip
    out = tmp_path / "both"
    assert main([*both, "--record", str(out / "{system}.json"), "--predictions", str(out / "{system}.parquet"),
                 "--model", str(out / "{system}.keras")]) == 0  # fmt: skip
    bi = json.loads((out / "BiLSTM.json").read_text())
    assert bi["curves"] == first["curves"] and bi["rows"] == first["rows"] and bi["run_key"] == first["run_key"]
    pd.testing.assert_frame_equal(pd.read_parquet(out / "BiLSTM.parquet"), preds)
    assert json.loads((out / "UniLSTM.json").read_text())["system"] == "UniLSTM"
    flat = tmp_path / "flat"
    assert main([*both, "--record", str(flat / "r.json"), "--predictions", str(flat / "p.parquet"),
                 "--model", str(flat / "m.keras")]) == 1  # fmt: skip
    assert not flat.exists()

    assert first["system"] == "BiLSTM" and first["paper"] == "anygram"
    assert set(first["curves"]) == {"loss", "accuracy", "val_loss", "val_accuracy"}
    assert first["params"]["epochs_trained"] == len(first["curves"]["loss"])
    assert first["timings"]["train"] > 0 and first["provenance"]["threads"] == 1
    epochs_run = len(first["curves"]["loss"])
    assert first["timings"]["train_per_epoch"] == pytest.approx(first["timings"]["train"] / epochs_run)
    assert {(r["split"], r["metric"]) for r in first["rows"]} == {
        (s, m) for s in ("dev", "test") for m in ("accuracy", "macro_f1")
    }
    # The saved model is the best-dev one: reloaded, it reproduces the recorded test predictions.
    model = keras.saving.load_model(first["artifacts"][0])
    test = frame[frame["split"] == "test"]
    ids = lstm.encode_tokens(test["tokens"], laptop_vectors[0], cased=False)
    aspect = [np.asarray(m, dtype=np.float32) for m in test["aspect_mask"]]
    classes = sorted(frame["label"].unique())
    reloaded = [classes[i] for i in lstm.predict_proba(model, ids, aspect).argmax(axis=1)]
    assert reloaded == preds[preds["split"] == "test"]["y_pred"].tolist()


def test_command_names_a_bad_embeddings_file(tmp_path, laptop):
    prepared = tmp_path / "laptop.parquet"
    _slice(laptop, 20).to_parquet(prepared, index=False)
    bad = tmp_path / "emb.npz"
    bad.write_text("not a zip")
    settings = {"batch_size": 4, "layers": 1, "hidden_size": 2, "learning_rate": 0.01, "dropout": 0.0, "max_epochs": 1, "patience": 1}
    code = main(
        ["lstm", "--dataset", "semeval14_laptop", "--system", "UniLSTM", "--seed", "1", "--prepared", str(prepared),
         "--embeddings", str(bad), "--settings", json.dumps(settings), "--profile", "test",
         "--record", str(tmp_path / "r.json"), "--predictions", str(tmp_path / "p.parquet"), "--model", str(tmp_path / "m.keras")]
    )  # fmt: skip
    assert code == 1
    assert not (tmp_path / "r.json").exists() and not (tmp_path / "m.keras").exists()


def test_patience_replay_keeps_the_epoch_keras_early_stopping_keeps():
    import importlib.util

    script = REPO_ROOT / "benchmarks" / "lstm_patience.py"
    spec = importlib.util.spec_from_file_location("lstm_patience", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    dev = [0.5, 0.6, 0.6, 0.55, 0.7, 0.65]  # a tie is no improvement
    assert module.replay(dev, 2) == (2, 4)
    assert module.replay(dev, 3) == (5, 6)  # runs out of epochs
    assert module.replay(dev, 1) == (2, 3)

    import keras

    for patience in (1, 2, 3):  # Keras' own callback, fed the same curve
        model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1)])
        stopper = keras.callbacks.EarlyStopping(monitor="val_accuracy", mode="max", patience=patience,
                                                restore_best_weights=True)
        model.stop_training = False  # as fit sets it
        stopper.set_model(model)
        stopper.on_train_begin()
        for epoch, value in enumerate(dev):
            stopper.on_epoch_end(epoch, {"val_accuracy": value})
            if model.stop_training:
                break
        assert module.replay(dev, patience) == (stopper.best_epoch + 1, epoch + 1)
