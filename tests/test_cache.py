"""Cache files detect truncation and corruption instead of being used."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from kernbench.cache import CacheError, load_dense, load_sparse, save_dense, save_sparse


def test_dense_and_sparse_round_trip(tmp_path):
    rng = np.random.default_rng(0)
    gram = rng.normal(size=(40, 30))
    save_dense(tmp_path / "g.npz", gram)
    np.testing.assert_array_equal(load_dense(tmp_path / "g.npz"), gram)
    features = sp.random(50, 200, density=0.05, random_state=1, format="csr")
    save_sparse(tmp_path / "f.npz", features)
    assert (load_sparse(tmp_path / "f.npz") != features).nnz == 0


def test_truncated_cache_is_rejected(tmp_path):
    save_dense(tmp_path / "g.npz", np.arange(10_000, dtype=float))
    data = (tmp_path / "g.npz").read_bytes()
    (tmp_path / "g.npz").write_bytes(data[: len(data) // 2])
    with pytest.raises(CacheError, match="g.npz"):
        load_dense(tmp_path / "g.npz")


def test_corrupted_cache_is_rejected(tmp_path):
    # Stored uncompressed: flipping a byte in the middle changes the array, not the zip structure.
    save_dense(tmp_path / "g.npz", np.zeros(10_000))
    data = bytearray((tmp_path / "g.npz").read_bytes())
    data[len(data) // 2] ^= 0xFF
    (tmp_path / "g.npz").write_bytes(bytes(data))
    with pytest.raises(CacheError, match="g.npz"):
        load_dense(tmp_path / "g.npz")


def test_a_file_that_is_not_a_cache_is_rejected(tmp_path):
    np.save(tmp_path / "plain.npy", np.ones(3))
    (tmp_path / "plain.npz").write_bytes((tmp_path / "plain.npy").read_bytes())
    with pytest.raises(CacheError):
        load_dense(tmp_path / "plain.npz")


def test_atomic_outputs_get_the_permissions_of_a_plain_file(tmp_path):
    import os
    import stat

    from kernbench.fileio import atomic_path, write_text_atomic

    old = os.umask(0o022)
    try:
        write_text_atomic(tmp_path / "table.csv", "a,b\n")
        (tmp_path / "plain.csv").write_text("a,b\n")
        with pytest.raises(RuntimeError), atomic_path(tmp_path / "failed.csv") as tmp:
            tmp.write_text("half")
            raise RuntimeError("killed")
    finally:
        os.umask(old)
    mode = stat.S_IMODE((tmp_path / "table.csv").stat().st_mode)
    assert mode == stat.S_IMODE((tmp_path / "plain.csv").stat().st_mode) == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plain.csv", "table.csv"]
