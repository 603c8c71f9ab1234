"""Shared pytest fixtures."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def mirror() -> Path:
    """Directory holding the raw corpora (``KERNBENCH_MIRROR`` or ``../shared/data``).

    The tests check exact counts on the real data, so a missing mirror is a
    failure, not a reason to skip.
    """
    path = Path(os.environ.get("KERNBENCH_MIRROR", REPO_ROOT.parent / "shared" / "data"))
    if not path.is_dir():
        pytest.fail(f"data mirror {path} does not exist; set KERNBENCH_MIRROR to the raw data directory")
    return path


@pytest.fixture(scope="session")
def laptop(mirror):
    """The prepared SemEval-2014 laptop set (seeded 10 % dev split)."""
    from kernbench.data import semeval14

    return semeval14.prepare(
        mirror / "semeval14/Laptop_Train_v2.xml", mirror / "semeval14/Laptops_Test_Gold.xml", dev_fraction=0.1, seed=1
    )


def glove_for(frame):
    """GloVe 6B 50d cut to the (lower-cased) tokens of a prepared frame: ``(vocabulary, matrix)``."""
    from kernbench.data import embeddings

    words, vectors = embeddings.load_glove_6b_50d()
    tokens = [t for toks in frame["tokens"] for t in toks]
    vocabulary, matrix, _ = embeddings.cut_to_vocabulary(tokens, words, vectors, cased=False)
    return vocabulary, matrix
