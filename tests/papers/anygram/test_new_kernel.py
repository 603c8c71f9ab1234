"""A kernel is one function and one registry entry: a toy kernel registered here is planned, run and tabled.

The toy is the linear kernel of bags of words on token ids, ``K(x, y) = sum_w count_x(w) count_y(w)``:
it has no parameters and depends on no encoding key.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
import yaml
from sklearn.feature_extraction.text import CountVectorizer

from kernbench.cache import load_dense
from kernbench.cli import main
from kernbench.config_check import ConfigError, check_names
from kernbench.papers.anygram import systems
from kernbench.papers.anygram.experiment import gram_dirs, planned_runs
from kernbench.papers.anygram.kernel_setting import KernelSetting
from kernbench.papers.anygram.plan import targets

ROOT = Path(__file__).resolve().parents[3]
TOY = "BOWlin"


def _counts(X, width: int) -> sp.csr_matrix:
    rows = np.repeat(np.arange(len(X)), [len(x) for x in X])
    cols = np.concatenate([np.asarray(x, dtype=np.int64) for x in X]) if len(X) else np.zeros(0, np.int64)
    return sp.csr_matrix((np.ones(cols.size), (rows, cols)), shape=(len(X), width))


def bow_gram(X, Y=None):
    """Bag-of-words linear kernel between lists of token-id arrays."""
    Y = X if Y is None else Y
    width = 1 + max((int(np.max(x)) for x in [*X, *Y] if len(x)), default=0)
    return (_counts(X, width) @ _counts(Y, width).T).toarray()


def bow_diag(X):
    """Its self-similarities: the sum of squared word counts of each sentence."""
    return np.array([float(np.sum(np.unique(x, return_counts=True)[1] ** 2)) for x in X])


@pytest.fixture
def toy_kernel():
    system = systems.register(
        systems.KernelSystem(TOY, "bow", None, bow_gram, bow_diag, group="agk", params=(), encoding=())
    )
    yield system
    del systems.SYSTEMS[TOY]


def _config(**anygram) -> dict:
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    config["datasets"] = ["sst"]
    config["anygram"].update(anygram)
    return config


def test_the_registry_refuses_what_it_cannot_name_or_read():
    with pytest.raises(ValueError, match="registered already"):
        systems.register(systems.SYSTEMS[next(iter(systems.SYSTEMS))])
    with pytest.raises(ValueError, match="letters and digits"):
        systems.KernelSystem("BOW_lin", "bow", None, bow_gram, bow_diag, group="agk")
    with pytest.raises(ValueError, match="group"):
        systems.KernelSystem("BOWlin", "bow", None, bow_gram, bow_diag, group="bow")
    with pytest.raises(ValueError, match="params"):
        systems.KernelSystem("BOWlin", "bow", None, bow_gram, bow_diag, group="agk", params=("sigma",))
    with pytest.raises(ValueError, match="unknown any-gram kernel system 'BOWlin'"):
        systems.get(TOY)


def test_a_registered_kernel_is_planned_and_checked(toy_kernel):
    config = _config(agk_datasets=["sst"], agk_systems=["AGKsm", TOY])
    assert planned_runs(config) == [("sst", "AGKsm"), ("sst", TOY)]
    records = targets(config, "res").records
    assert "res/runs/anygram/sst/kernels/BOWlin.json" in records
    # no parameters: its kernel setting is its name alone, one Gram directory
    assert gram_dirs("cache", "sst", TOY, config["anygram"]) == ["cache/sst/BOWlin"]
    assert KernelSetting.parse(TOY) == KernelSetting(TOY, None, None)
    assert re.fullmatch(KernelSetting.PATTERN, TOY) and not re.fullmatch(KernelSetting.PATTERN, TOY + "_lam0.4")
    for key, valid in systems.config_names().items():
        check_names(config, key, valid, "kernel systems it may name")
    assert TOY in systems.config_names()["anygram.sensitivity.dev_split_systems"]
    # it has no decay to vary, nor does it belong with the tree kernels
    config["anygram"]["sensitivity"]["lam_systems"] = [TOY]
    key = "anygram.sensitivity.lam_systems"
    with pytest.raises(ConfigError, match=rf"{key} names 'BOWlin'.*\(AGKsm, AGKwess\)"):
        check_names(config, key, systems.config_names()[key], "kernel systems it may name")
    with pytest.raises(ConfigError, match="anygram.ngtk_systems names 'BOWlin'"):
        check_names(_config(ngtk_systems=[TOY]), "anygram.ngtk_systems", systems.names(lambda s: s.group == "ngtk"),
                    "kernel systems it may name")


def test_an_unregistered_kernel_is_refused_by_the_config_check():
    config = _config(agk_systems=["AGKsm", TOY])
    with pytest.raises(ConfigError, match="anygram.agk_systems names 'BOWlin'"):
        check_names(config, "anygram.agk_systems", systems.config_names()["anygram.agk_systems"], "systems")


def _toy_data(tmp_path) -> tuple[pd.DataFrame, Path, Path]:
    rng = np.random.default_rng(3)
    filler = ["the", "film", "was", "a", "story", "and", "The"]
    rows = []
    for split, n in (("train", 40), ("dev", 16), ("test", 16)):
        for k in range(n):
            label = k % 2
            tokens = list(rng.choice(filler, 4)) + [["dull", "great"][label]] * int(rng.integers(1, 3))
            rows.append({"id": f"{split}-{k}", "split": split, "label": ["neg", "pos"][label], "tokens": tokens})
    frame = pd.DataFrame(rows)
    prepared = tmp_path / "sst.parquet"
    frame.to_parquet(prepared, index=False)
    words = np.array(["the", "film", "was", "a", "story", "great"])  # "and" and "dull" have no vector
    embeddings = tmp_path / "emb.npz"
    np.savez(embeddings, words=words, vectors=np.eye(words.size, dtype=np.float32), found=np.ones(words.size, bool),
             cased=False)
    return frame, prepared, embeddings


def test_a_registered_kernel_is_run_and_tabled(toy_kernel, tmp_path):
    frame, prepared, embeddings = _toy_data(tmp_path)
    gram_dir = tmp_path / "cache" / TOY
    assert main(["anygram-gram", "--dataset", "sst", "--kernel", TOY, "--prepared", str(prepared),
                 "--embeddings", str(embeddings), "--out-dir", str(gram_dir)]) == 0

    # the Gram matrices are word-count inner products (lower-cased, as the embeddings are)
    vectorizer = CountVectorizer(analyzer=lambda tokens: [t.lower() for t in tokens]).fit(frame["tokens"])
    counts = {s: vectorizer.transform(frame[frame["split"] == s]["tokens"]) for s in ("train", "dev", "test")}
    for split, x in counts.items():
        np.testing.assert_array_equal(load_dense(gram_dir / f"{split}.npz"), (x @ counts["train"].T).toarray())
        diag = np.asarray(x.multiply(x).sum(axis=1)).ravel()
        np.testing.assert_array_equal(load_dense(gram_dir / f"{split}_diag.npz"), diag)

    record = tmp_path / "runs" / f"{TOY}.json"
    predictions = tmp_path / "runs" / f"{TOY}.predictions.parquet"
    assert main(["anygram-svm", "--dataset", "sst", "--system", TOY, "--prepared", str(prepared),
                 "--grams", str(gram_dir), "--settings", json.dumps({"C": [0.1, 1.0], "normalize": [False, True]}),
                 "--seed", "1", "--profile", "test", "--record", str(record), "--predictions", str(predictions),
                 "--confusion", str(tmp_path / "runs" / "confusion.csv")]) == 0
    rec = json.loads(record.read_text())
    assert (rec["paper"], rec["dataset"], rec["system"]) == ("anygram", "sst", TOY)
    assert "theta" not in rec["params"]["chosen"] and rec["params"]["lam"] is None
    # the label word alone tells the classes apart: a kernel that sees the words gets every item right
    assert {(r["split"], r["metric"]): r["value"] for r in rec["rows"]}[("test", "accuracy")] == 1.0

    paper_values = tmp_path / "paper_results.yaml"
    paper_values.write_text(yaml.safe_dump({"anygram": {"source": "toy", "values": [
        {"dataset": "sst", "system": TOY, "split": "test", "metric": "accuracy", "value": 97.5}]}}))
    csv = tmp_path / "tables" / "anygram.csv"
    assert main(["tables", "--records", str(record), "--paper-values", str(paper_values), "--csv", str(csv),
                 "--md", str(tmp_path / "tables" / "anygram.md")]) == 0
    table = pd.read_csv(csv).set_index(["dataset", "system", "split", "metric"])
    cell = table.loc[("sst", TOY, "test", "accuracy")]
    assert (cell["value"], cell["paper_value"], cell["delta"]) == (100.0, 97.5, 2.5)
    assert set(table.index.get_level_values("system")) == {TOY}


def test_the_commands_offer_the_registered_systems(toy_kernel, capsys):
    with pytest.raises(SystemExit):
        main(["anygram-primal", "--help"])
    primal_help = capsys.readouterr().out
    assert TOY not in primal_help and all(s in primal_help for s in systems.names(lambda s: s.primal is not None))
    with pytest.raises(SystemExit):
        main(["anygram-svm", "--help"])
    assert TOY in capsys.readouterr().out
