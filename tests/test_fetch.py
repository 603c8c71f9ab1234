"""Raw-file fetch: every registered file verifies on the mirror; bad files and missing mirrors stop cleanly."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kernbench.data.fetch import fetch_dataset, verify
from kernbench.data.registry import RAW_DATASETS, raw_dataset
from kernbench.errors import DataError, FetchError


@pytest.mark.parametrize("name", sorted(RAW_DATASETS))
def test_every_registered_file_verifies_on_the_mirror(mirror, tmp_path, name):
    paths = fetch_dataset(raw_dataset(name), mirror=mirror, dest_dir=tmp_path, allow_download=False)
    assert [p.relative_to(tmp_path).as_posix() for p in paths] == [f.path for f in RAW_DATASETS[name].files]
    for path, entry in zip(paths, RAW_DATASETS[name].files):
        assert path.stat().st_size == entry.size


def test_registry_lists_urls_where_public_and_explains_where_not():
    assert all(f.urls and f.member for f in RAW_DATASETS["sst"].files)
    assert all(f.urls and f.member for f in RAW_DATASETS["reuters21578"].files)
    assert not any(f.urls for f in RAW_DATASETS["semeval14"].files)
    assert "META-SHARE" in RAW_DATASETS["semeval14"].source


def _corrupt_mirror(mirror: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "mirror"
    shutil.copytree(mirror / "sst", copy / "sst")
    target = copy / "sst" / "dev.txt"
    target.chmod(0o644)
    data = bytearray(target.read_bytes())
    data[100] = ord("X") if data[100] != ord("X") else ord("Y")
    target.write_bytes(bytes(data))
    return copy


def test_wrong_sha256_names_the_file_and_leaves_nothing(mirror, tmp_path):
    bad = _corrupt_mirror(mirror, tmp_path)
    dest = tmp_path / "raw"
    with pytest.raises(DataError, match=r"sst/dev\.txt.*sha256"):
        fetch_dataset(raw_dataset("sst"), mirror=bad, dest_dir=dest, allow_download=False)
    assert not [p for p in dest.rglob("*") if p.is_file()]


def test_truncated_file_is_rejected_by_size(mirror, tmp_path):
    entry = RAW_DATASETS["semeval14"].files[0]
    truncated = tmp_path / "Laptop_Train_v2.xml"
    truncated.write_bytes((mirror / entry.path).read_bytes()[:1000])
    with pytest.raises(DataError, match="truncated"):
        verify(truncated, entry, origin="test")


def test_missing_mirror_without_network_names_the_file_and_the_source(tmp_path):
    dest = tmp_path / "raw"
    with pytest.raises(FetchError) as info:
        fetch_dataset(raw_dataset("semeval14"), mirror=tmp_path / "empty", dest_dir=dest, timeout=5)
    assert "semeval14/Laptop_Train_v2.xml" in str(info.value)
    assert "META-SHARE" in str(info.value)
    assert not [p for p in dest.rglob("*") if p.is_file()]


def test_download_attempt_fails_cleanly_when_offline(tmp_path):
    # No network here: the canonical URL is tried, fails, and the error says which file and URL.
    dest = tmp_path / "raw"
    result = subprocess.run(
        [sys.executable, "-m", "kernbench.cli", "fetch", "sst", "--mirror", str(tmp_path / "empty"),
         "--raw-dir", str(dest), "--timeout", "5"],
        capture_output=True, text=True,
    )
    assert result.returncode == 1
    assert "sst/train.txt" in result.stderr and "trainDevTestTrees_PTB.zip" in result.stderr
    assert not [p for p in dest.rglob("*") if p.is_file()]


def test_failed_archive_download_leaves_no_temporary_file(tmp_path, monkeypatch):
    """An archive that downloads but cannot be opened is removed, wherever temporary files go."""
    import tempfile

    from kernbench.data.fetch import fetch_file
    from kernbench.data.registry import RawFile

    system_tmp = tmp_path / "system-tmp"
    system_tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(system_tmp))
    not_a_zip = tmp_path / "trees.zip"
    not_a_zip.write_bytes(b"this is not a zip archive")
    entry = RawFile("sst/train.txt", 10, "0" * 64, urls=(not_a_zip.as_uri(),), member="trees/train.txt")
    dest = tmp_path / "raw"
    archives = {}
    with pytest.raises(FetchError, match="trees.zip"):
        fetch_file(entry, mirror=tmp_path / "empty", dest_dir=dest, source="test", archives=archives)
    assert archives == {}
    assert list(system_tmp.iterdir()) == []
    assert [p for p in dest.rglob("*") if p.is_file()] == []
