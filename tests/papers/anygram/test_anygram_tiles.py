"""Gram matrices computed as row tiles, one command each, then assembled, equal the one-block matrices."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from kernbench.cache import load_dense
from kernbench.cli import main
from kernbench.kernels import anygram as anygram_kernels
from kernbench.kernels.anygram_encoding import TokenEncoder
from kernbench.papers.anygram.experiment import (
    check_tile_rows,
    compute_gram_tile,
    tile_bounds,
    tile_files,
)
from kernbench.papers.anygram.kernel_setting import KernelSetting
from tests.conftest import glove_for

SIZES = {"train": 520, "dev": 60, "test": 270}  # 3, 1 and 2 tiles of 256 rows


@pytest.fixture(scope="module")
def laptop_slice(laptop, tmp_path_factory):
    frame = pd.concat([laptop[laptop["split"] == s].iloc[:n] for s, n in SIZES.items()], ignore_index=True)
    vocabulary, matrix = glove_for(frame)
    root = tmp_path_factory.mktemp("tiles")
    prepared, emb = root / "semeval14_laptop.parquet", root / "emb.npz"
    frame.to_parquet(prepared, index=False)
    np.savez(emb, words=vocabulary, vectors=matrix, cased=False)
    return root, prepared, emb


def test_tile_sizes_are_multiples_of_the_wess_row_block():
    assert anygram_kernels._WESS_ROWS == anygram_kernels.WESS_ROW_BLOCK == 256
    assert tile_bounds(520, 256) == [(0, 256), (256, 512), (512, 520)]
    assert tile_bounds(0, 256) == [(0, 0)]
    for bad in (0, 100, -256):
        with pytest.raises(ValueError, match="multiple of 256"):
            check_tile_rows(bad)


@pytest.mark.parametrize(
    "system, theta",
    [("AGKsm", None), ("AGKwest", 0.8), ("AGKwess", None), ("NGTKsm", None), ("NGTKwest", 0.8)],
)
def test_tiled_gram_equals_the_one_block_gram(laptop_slice, system, theta):
    root, prepared, emb = laptop_slice
    kernel = KernelSetting(system, 0.4, theta).name
    common = ["--dataset", "semeval14_laptop", "--kernel", kernel, "--prepared", str(prepared), "--embeddings", str(emb)]
    one_block = root / "one" / kernel
    assert main(["anygram-gram", *common, "--threads", "2", "--out-dir", str(one_block)]) == 0
    tiles = tile_files(str(root / "cache"), "semeval14_laptop", kernel, str(prepared), 256)
    assert len(tiles) == 3 + 1 + 2
    for path in tiles:
        split, tile = path.rsplit("/", 1)[1].removesuffix(".npz").split("_")
        args = ["--split", split, "--tile", tile, "--tile-rows", "256", "--threads", "2", "--out", path]
        assert main(["anygram-gram-tile", *common, *args]) == 0
    assembled = root / "assembled" / kernel
    assert main(["anygram-gram-assemble", *common, "--tiles", *reversed(tiles), "--out-dir", str(assembled)]) == 0

    frame = pd.read_parquet(prepared)
    encoder = TokenEncoder.from_npz(emb)
    for split, n in SIZES.items():
        got = load_dense(assembled / f"{split}.npz")
        assert got.shape == (n, SIZES["train"])
        np.testing.assert_array_equal(load_dense(assembled / f"{split}_diag.npz"), load_dense(one_block / f"{split}_diag.npz"))
        if split == "train":
            # One block of rows against the training set, bit for bit; the symmetric one-block job to round-off.
            block = compute_gram_tile(frame, encoder, system=system, lam=0.4, theta=theta, split="train", start=0, stop=n)
            np.testing.assert_array_equal(got, block)
            np.testing.assert_allclose(got, load_dense(one_block / "train.npz"), rtol=1e-12, atol=1e-12)
        else:
            np.testing.assert_array_equal(got, load_dense(one_block / f"{split}.npz"))


def test_assemble_refuses_missing_tiles(laptop_slice, capsys):
    root, prepared, emb = laptop_slice
    kernel = "AGKsm_lam0.4"
    common = ["--dataset", "semeval14_laptop", "--kernel", kernel, "--prepared", str(prepared), "--embeddings", str(emb)]
    tiles = tile_files(str(root / "partial"), "semeval14_laptop", kernel, str(prepared), 256)
    for path in tiles:
        split, tile = path.rsplit("/", 1)[1].removesuffix(".npz").split("_")
        main(["anygram-gram-tile", *common, "--split", split, "--tile", tile, "--tile-rows", "256", "--out", path])
    out_dir = root / "partial-out"
    code = main(["anygram-gram-assemble", *common, "--tiles", *tiles[1:], "--out-dir", str(out_dir)])
    assert code == 1
    assert "train" in capsys.readouterr().err
    assert not out_dir.exists() or not any(out_dir.iterdir())


def _never():
    raise AssertionError("the prepared table was read")


@pytest.mark.parametrize(
    ("subsample", "known"),
    [({"train": 256, "dev": 60, "test": 100}, True), ({"train": 400, "dev": 60, "test": 100}, False),
     ({"dev": 60, "test": 100}, False), ({}, False), (None, False)],
)  # fmt: skip
def test_a_subsample_within_one_tile_plans_the_tiles_before_the_table_is_prepared(tmp_path, subsample, known):
    prepared = tmp_path / "prepared.parquet"
    pd.DataFrame({"split": ["train"] * 300 + ["dev"] * 60 + ["test"] * 100}).to_parquet(prepared)
    tiles = tile_files("c", "d", "k", _never if known else lambda: str(prepared), 256, subsample=subsample)
    # Known: one tile per split (a subsample of 256 rows at most); read: train's 300 rows are two tiles.
    train = ["c/d/k/tiles/train_0.npz"] if known else ["c/d/k/tiles/train_0.npz", "c/d/k/tiles/train_1.npz"]
    assert tiles == [*train, "c/d/k/tiles/dev_0.npz", "c/d/k/tiles/test_0.npz"]
