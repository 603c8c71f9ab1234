"""Any-gram experiments: kernel names, selection on dev, and the two subcommands end to end."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from kernbench.cache import load_dense
from kernbench.cli import main
from kernbench.errors import DataError
from kernbench.kernels.anygram import anygram_gram
from kernbench.papers.anygram.experiment import run_svm
from kernbench.papers.anygram.kernel_setting import KernelSetting
from kernbench.papers.anygram.systems import SYSTEMS


@pytest.mark.parametrize("system", sorted(SYSTEMS))
def test_kernel_name_round_trip(system):
    theta = 0.85 if SYSTEMS[system].uses_theta else None
    setting = KernelSetting(system, 0.4, theta)
    assert KernelSetting.parse(setting.name) == setting
    assert re.fullmatch(KernelSetting.PATTERN, setting.name)


def test_kernel_name_rejects_bad_names():
    for bad in ("AGKwest_lam0.4", "AGKsm_lam0.4_theta0.8", "Foo_lam0.4"):
        with pytest.raises(DataError):
            KernelSetting.parse(bad)
    for bad in ("Foo_lam0.4", "AGKsm_lam", "AGKsm_lam0.4_thetax", "AGKsm_lam0.4/train"):
        assert not re.fullmatch(KernelSetting.PATTERN, bad)


def _toy_frame(n_per_split=(30, 12, 12), seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for split, n in zip(("train", "dev", "test"), n_per_split):
        for k in range(n):
            label = k % 2
            word = "good" if label else "bad"
            tokens = ["the", "food", "was"] + [word] * int(rng.integers(1, 3)) + list(rng.choice(["very", "so", "."], 2))
            mask = [0, 1] + [0] * (len(tokens) - 2)
            rows.append({"id": f"{split}-{k}", "split": split, "label": ["negative", "positive"][label],
                         "tokens": tokens, "aspect_mask": mask})
    return pd.DataFrame(rows)


def test_run_svm_picks_the_informative_setting():
    frame = _toy_frame()
    ids = {"good": 0, "bad": 1, "the": 2, "food": 3, "was": 4, "very": 5, "so": 6, ".": 7}
    seqs = {s: [np.array([ids[t] for t in toks]) for toks in frame[frame.split == s].tokens] for s in ("train", "dev", "test")}
    informative = {s: (anygram_gram(seqs[s], seqs["train"], variant="sm", lam=0.4), np.ones(len(seqs[s]))) for s in seqs}
    noise = {s: (np.ones((len(seqs[s]), len(seqs["train"]))), np.ones(len(seqs[s]))) for s in seqs}
    result = run_svm(frame, {0.5: noise, 0.9: informative}, C_grid=[1.0], normalize_options=[False], dataset="toy")
    scale = float(np.mean(informative["train"][1]))
    assert result.chosen == {"theta": 0.9, "normalize": False, "C": 1.0, "kernel_scale": scale}
    assert {(r["split"], r["metric"]) for r in result.rows} == {(s, m) for s in ("dev", "test") for m in ("accuracy", "macro_f1")}
    assert all(r["value"] == 1.0 for r in result.rows if r["metric"] == "accuracy")
    assert result.confusion["test"]["matrix"] == [[6, 0], [0, 6]]


def test_unnormalised_kernel_is_scaled_by_the_mean_training_self_similarity():
    from sklearn.svm import SVC

    from kernbench.papers.anygram.experiment import kernel_scale

    rng = np.random.default_rng(7)
    sizes = {"train": 80, "dev": 40, "test": 40}
    x = {s: rng.normal(size=(n, 4)) * 10.0 for s, n in sizes.items()}
    labels = {s: np.where(v[:, 0] + rng.normal(scale=8.0, size=len(v)) > 0, "pos", "neg") for s, v in x.items()}
    frame = pd.DataFrame([{"id": f"{s}-{k}", "split": s, "label": labels[s][k]} for s in sizes for k in range(sizes[s])])
    grams = {s: x[s] @ x["train"].T for s in sizes}
    diags = {s: (x[s] ** 2).sum(axis=1) for s in sizes}
    scale = float(diags["train"].mean())
    assert scale > 100.0 and kernel_scale(diags["train"]) == scale
    assert kernel_scale(np.zeros(3)) == 1.0 and kernel_scale(np.array([])) == 1.0
    result = run_svm(frame, {None: {s: (grams[s], diags[s]) for s in sizes}}, C_grid=[0.05],
                     normalize_options=[False], dataset="toy")
    assert result.chosen == {"normalize": False, "C": 0.05, "kernel_scale": scale}

    def predictions(c):
        model = SVC(kernel="precomputed", C=c, decision_function_shape="ovo").fit(grams["train"], labels["train"])
        return np.concatenate([model.predict(grams["dev"]), model.predict(grams["test"])])

    # K / s with C is the SVM with C / s on the raw K (and not the one with C).
    np.testing.assert_array_equal(result.predictions["y_pred"].to_numpy(), predictions(0.05 / scale))
    assert (predictions(0.05) != predictions(0.05 / scale)).any()


def test_gram_and_svm_commands(tmp_path, capsys):
    frame = _toy_frame()
    prepared = tmp_path / "semeval14_laptop.parquet"
    frame.to_parquet(prepared, index=False)
    words = np.array(sorted({t.lower() for toks in frame.tokens for t in toks}))
    vectors = np.random.default_rng(1).normal(size=(words.size, 5)).astype(np.float32)
    emb = tmp_path / "emb.npz"
    np.savez(emb, words=words, vectors=vectors, found=np.ones(words.size, bool), cased=False)
    dirs = []
    for theta in (0.5, 0.9):
        out_dir = tmp_path / "cache" / KernelSetting("AGKwest", 0.4, theta).name
        assert main(["anygram-gram", "--dataset", "semeval14_laptop", "--kernel", out_dir.name, "--prepared", str(prepared),
                     "--embeddings", str(emb), "--out-dir", str(out_dir)]) == 0
        assert load_dense(out_dir / "dev.npz").shape == (12, 30)
        assert load_dense(out_dir / "train_diag.npz").shape == (30,)
        dirs.append(str(out_dir))
    # Both settings in one job: the same matrices, bit for bit; without {kernel} in --out-dir it is refused.
    both = [KernelSetting("AGKwest", 0.4, theta).name for theta in (0.5, 0.9)]
    common = ["anygram-gram", "--dataset", "semeval14_laptop", "--kernel", *both, "--prepared", str(prepared),
              "--embeddings", str(emb)]
    assert main([*common, "--out-dir", str(tmp_path / "one-job" / "{kernel}")]) == 0
    for name, one in zip(both, dirs):
        for split in ("train", "dev", "test", "train_diag"):
            np.testing.assert_array_equal(
                load_dense(tmp_path / "one-job" / name / f"{split}.npz"), load_dense(Path(one) / f"{split}.npz")
            )
    assert main([*common, "--out-dir", str(tmp_path / "one-dir")]) != 0
    assert "must contain {kernel}" in capsys.readouterr().err and not (tmp_path / "one-dir").exists()

    record = tmp_path / "AGKwest.json"
    assert main(["anygram-svm", "--dataset", "semeval14_laptop", "--system", "AGKwest", "--prepared", str(prepared),
                 "--grams", *dirs, "--settings", json.dumps({"C": [1.0, 10.0], "normalize": [False, True]}),
                 "--seed", "1", "--profile", "smoke", "--record", str(record),
                 "--predictions", str(tmp_path / "p.parquet"), "--confusion", str(tmp_path / "c.csv")]) == 0
    rec = json.loads(record.read_text())
    assert rec["system"] == "AGKwest" and rec["params"]["theta_grid"] == [0.5, 0.9]
    assert set(rec["params"]["chosen"]) == {"theta", "normalize", "C", "kernel_scale"}
    assert len(rec["params"]["dev_accuracy_grid"]) == 2 * 2 * 2
    chosen = rec["params"]["chosen"]
    assert rec["grid_choices"] == {
        "C": {"value": chosen["C"], "grid": [1.0, 10.0]}, "theta": {"value": chosen["theta"], "grid": [0.5, 0.9]}
    }
    assert len(pd.read_parquet(tmp_path / "p.parquet")) == 24
    confusion = pd.read_csv(tmp_path / "c.csv")
    assert confusion.groupby("split")["count"].sum().to_dict() == {"dev": 12, "test": 12}

    # Two systems in one SVC job: each writes what its job alone writes; a template without {system} is refused.
    sm_dir = tmp_path / "cache" / "AGKsm_lam0.4"
    assert main(["anygram-gram", "--dataset", "semeval14_laptop", "--kernel", sm_dir.name, "--prepared", str(prepared),
                 "--embeddings", str(emb), "--out-dir", str(sm_dir)]) == 0
    sm_settings = json.dumps({"C": [1.0, 10.0], "normalize": [False, True]})
    assert main(["anygram-svm", "--dataset", "semeval14_laptop", "--system", "AGKsm", "--prepared", str(prepared),
                 "--grams", str(sm_dir), "--settings", sm_settings, "--seed", "1", "--profile", "smoke",
                 "--record", str(tmp_path / "AGKsm.json"), "--predictions", str(tmp_path / "sm.parquet"),
                 "--confusion", str(tmp_path / "sm.csv")]) == 0
    both = ["anygram-svm", "--dataset", "semeval14_laptop", "--system", "AGKwest", "AGKsm", "--prepared", str(prepared),
            "--grams", *dirs, str(sm_dir), "--settings", json.dumps({"C": [1.0, 10.0], "normalize": [False, True]}),
            sm_settings, "--seed", "1", "--profile", "smoke"]
    assert main([*both, "--record", str(tmp_path / "both/{system}.json"), "--predictions",
                 str(tmp_path / "both/{system}.parquet"), "--confusion", str(tmp_path / "both/{system}.csv")]) == 0
    for system, alone, predictions in (("AGKwest", record, "p.parquet"), ("AGKsm", tmp_path / "AGKsm.json", "sm.parquet")):
        together = json.loads((tmp_path / "both" / f"{system}.json").read_text())
        single = json.loads(alone.read_text())
        assert together["system"] == system and together["run_key"] == single["run_key"]
        assert together["rows"] == single["rows"] and together["params"] == single["params"]
        pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "both" / f"{system}.parquet"),
                                      pd.read_parquet(tmp_path / predictions))
    assert main([*both, "--record", str(tmp_path / "one.json"), "--predictions", str(tmp_path / "one.parquet"),
                 "--confusion", str(tmp_path / "one.csv")]) != 0
    assert "must contain {system}" in capsys.readouterr().err and not (tmp_path / "one.json").exists()

    # A corrupted cached Gram matrix is detected and never used: the SVC job stops naming it.
    gram = Path(dirs[1]) / "test.npz"
    data = bytearray(gram.read_bytes())
    data[len(data) // 2] ^= 0xFF
    gram.write_bytes(bytes(data))
    record.unlink()
    assert main(["anygram-svm", "--dataset", "semeval14_laptop", "--system", "AGKwest", "--prepared", str(prepared),
                 "--grams", *dirs, "--settings", json.dumps({"C": [1.0], "normalize": [False]}),
                 "--seed", "1", "--profile", "smoke", "--record", str(record),
                 "--predictions", str(tmp_path / "p.parquet"), "--confusion", str(tmp_path / "c.csv")]) == 1
    assert "test.npz" in capsys.readouterr().err
    assert not record.exists()


def test_gram_command_names_a_bad_embeddings_file(tmp_path, capsys):
    prepared = tmp_path / "sst.parquet"
    _toy_frame().drop(columns="aspect_mask").to_parquet(prepared, index=False)
    (tmp_path / "bad.npz").write_bytes(b"not a zip")
    code = main(["anygram-gram", "--dataset", "sst", "--kernel", "AGKsm_lam0.4", "--prepared", str(prepared),
                 "--embeddings", str(tmp_path / "bad.npz"), "--out-dir", str(tmp_path / "out")])
    assert code == 1
    assert "bad.npz" in capsys.readouterr().err
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_c_grid_fitted_in_threads_chooses_and_predicts_as_the_serial_fit():
    from kernbench.learners.svm import KernelSet, select_svc_on_dev

    rng = np.random.default_rng(8)
    x = {s: rng.normal(size=(n, 6)) for s, n in (("train", 150), ("dev", 60), ("test", 60))}
    y = {s: np.digitize(v[:, 0] + 0.8 * rng.normal(size=len(v)), [-0.5, 0.5]) for s, v in x.items()}
    settings = {
        key: KernelSet(*(np.tanh(w * x[s] @ x["train"].T) for s in ("train", "dev", "test")))
        for key, w in (("narrow", 0.05), ("wide", 0.5))
    }
    grid = [0.01, 0.1, 1.0, 10.0, 100.0]
    serial = select_svc_on_dev(settings, y["train"], y["dev"], grid, n_jobs=1)
    threaded = select_svc_on_dev(settings, y["train"], y["dev"], grid, n_jobs=2)
    assert len(serial.dev_scores) == 10 and len(set(serial.dev_scores.values())) > 2  # C matters here
    assert threaded.dev_scores == serial.dev_scores
    assert (threaded.key, threaded.C) == (serial.key, serial.C)
    assert threaded.kernels is settings[serial.key]
    np.testing.assert_array_equal(threaded.model.decision_function(threaded.kernels.test),
                                  serial.model.decision_function(serial.kernels.test))


def test_gram_command_reads_its_encoding(tmp_path):
    """``--encoding`` reaches the kernel: an unknown word matches itself only with identical_match."""
    frame = pd.DataFrame({
        "id": ["a", "b", "c"], "split": ["train", "dev", "test"], "label": ["positive"] * 3,
        "tokens": [["zzqx", "good"], ["zzqx"], ["good"]], "aspect_mask": [[0, 1], [0], [1]],
    })  # fmt: skip
    prepared = tmp_path / "semeval14_laptop.parquet"
    frame.to_parquet(prepared, index=False)
    emb = tmp_path / "emb.npz"
    np.savez(emb, words=np.array(["good"]), vectors=np.ones((1, 3), np.float32), found=np.ones(1, bool), cased=False)
    dev = {}
    for identical in (False, True):
        out_dir = tmp_path / str(identical) / "AGKwess_lam0.4"
        assert main(["anygram-gram", "--dataset", "semeval14_laptop", "--kernel", out_dir.name, "--prepared",
                     str(prepared), "--embeddings", str(emb), "--out-dir", str(out_dir),
                     "--encoding", json.dumps({"identical_match": identical})]) == 0
        dev[identical] = load_dense(out_dir / "dev.npz")[0, 0]
    assert dev == {False: 0.0, True: pytest.approx(0.4)}
