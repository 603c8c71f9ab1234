"""Primal training: explicit sm / wess feature maps and the linear SVM on them against SVC on Gram matrices."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from kernbench.cli import main
from kernbench.data import sst
from kernbench.kernels.anygram import anygram_diag, anygram_gram
from kernbench.kernels.anygram_encoding import TokenEncoder
from kernbench.kernels.anygram_features import anygram_features
from kernbench.papers.anygram.experiment import primal_features, run_primal, run_svm
from tests.conftest import glove_for


@pytest.mark.parametrize("variant", ["sm", "wess"])
def test_feature_map_inner_products_are_the_kernel(variant):
    rng = np.random.default_rng(5)
    X = [rng.integers(0, 7, rng.integers(0, 25)) for _ in range(30)] + [np.zeros(0, dtype=np.int64), np.full(70, 3)]
    vectors = rng.normal(size=(7, 4))
    vectors[6] = 0.0  # a word without a vector
    kw = {"variant": variant, "lam": 0.4, "vectors": vectors}
    phi = anygram_features(X, **kw)
    gram = anygram_gram(X, method="dp", **kw)
    scale = np.sqrt(np.outer(anygram_diag(X, **kw), anygram_diag(X, **kw))) + 1e-300
    assert np.max(np.abs((phi @ phi.T).toarray() - gram) / scale) < 1e-12
    assert phi[30].nnz == 0  # the empty sentence maps to zero


def test_west_has_no_feature_map():
    with pytest.raises(ValueError, match="sm"):
        anygram_features([np.array([1])], variant="west", lam=0.4, vectors=np.eye(2))


@pytest.fixture(scope="module")
def sst_slice(mirror):
    frame = sst.prepare(*(mirror / "sst" / f"{s}.txt" for s in ("train", "dev", "test")))
    sizes = {"train": 1500, "dev": 300, "test": 1000}
    frame = pd.concat([frame[frame["split"] == s].iloc[:n] for s, n in sizes.items()], ignore_index=True)
    vocabulary, matrix = glove_for(frame)
    return frame, TokenEncoder(vocabulary, matrix, cased=False)


@pytest.mark.parametrize("system, variant", [("AGKsm", "sm"), ("AGKwess", "wess")])
def test_primal_svm_predicts_as_the_precomputed_svm(sst_slice, system, variant):
    frame, encoder = sst_slice
    ids = {s: [encoder.ids(t) for t in frame[frame["split"] == s]["tokens"]] for s in ("train", "dev", "test")}
    kw = {"variant": variant, "lam": 0.4, "vectors": encoder.vectors}
    grams = {None: {s: (anygram_gram(ids[s], None if s == "train" else ids["train"], **kw), anygram_diag(ids[s], **kw))
                    for s in ids}}
    kernel = run_svm(frame, grams, C_grid=[1.0], normalize_options=[True], dataset="sst")
    primal = run_primal(frame, primal_features(frame, encoder, system=system, lam=0.4), C_grid=[1.0],
                        normalize_options=[True], dataset="sst", seed=0)
    a, b = kernel.predictions, primal.predictions
    assert (a["id"] == b["id"]).all()
    agreement = (a["y_pred"] == b["y_pred"]).mean()
    assert agreement >= 0.99, agreement
    acc = {r["split"]: r["value"] for r in kernel.rows if r["metric"] == "accuracy"}
    acc_primal = {r["split"]: r["value"] for r in primal.rows if r["metric"] == "accuracy"}
    for split in ("dev", "test"):
        assert acc[split] > 0.3  # above the majority class of SST-5 (about 0.27)
        assert abs(acc[split] - acc_primal[split]) <= 0.01


def test_primal_command_writes_a_run_record(tmp_path, sst_slice):
    frame, encoder = sst_slice
    small = pd.concat([frame[frame["split"] == s].iloc[:n] for s, n in (("train", 200), ("dev", 60), ("test", 80))])
    prepared, emb = tmp_path / "sst.parquet", tmp_path / "emb.npz"
    small.to_parquet(prepared, index=False)
    np.savez(emb, words=np.array(list(encoder.index)), vectors=encoder.vectors, cased=False)
    record = tmp_path / "AGKwess.json"
    settings = json.dumps({"lam": 0.4, "C": [1.0, 10.0], "normalize": [False, True]})
    assert main(["anygram-primal", "--dataset", "sst", "--system", "AGKwess", "--prepared", str(prepared),
                 "--embeddings", str(emb), "--settings", settings, "--seed", "3", "--profile", "smoke",
                 "--record", str(record), "--predictions", str(tmp_path / "p.parquet"),
                 "--confusion", str(tmp_path / "c.csv")]) == 0
    rec = json.loads(record.read_text())
    assert rec["params"]["training"] == "primal" and len(rec["params"]["dev_accuracy_grid"]) == 4
    assert set(rec["params"]["chosen"]) == {"normalize", "C", "kernel_scale"}
    assert {"sst.dev.accuracy", "sst.test.accuracy"} <= set(rec["metrics"])
    assert len(pd.read_parquet(tmp_path / "p.parquet")) == 140
