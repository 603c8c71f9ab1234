"""Raw-file fetch: every registered file verifies on the mirror; bad files and missing mirrors stop cleanly."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from kernbench.data.fetch import fetch_dataset, verify
from kernbench.data.registry import BUILTIN_DATASETS, Download, RawFile, raw_dataset
from kernbench.errors import DataError, FetchError

#: The raw files of each built-in dataset.
RAW_DATASETS = {name: spec.raw for name, spec in BUILTIN_DATASETS.items()}


@pytest.mark.parametrize("name", sorted(RAW_DATASETS))
def test_every_registered_file_verifies_on_the_mirror(mirror, tmp_path, name):
    paths = fetch_dataset(raw_dataset(name), mirror=mirror, dest_dir=tmp_path, allow_download=False)
    assert [p.relative_to(tmp_path).as_posix() for p in paths] == [f.path for f in RAW_DATASETS[name].files]
    for path, entry in zip(paths, RAW_DATASETS[name].files):
        assert path.stat().st_size == entry.size


def test_every_registry_entry_has_a_sha256_and_only_https_downloads():
    files = [f for dataset in RAW_DATASETS.values() for f in dataset.files]
    assert len(files) == 33
    for entry in files:
        assert re.fullmatch(r"[0-9a-f]{64}", entry.sha256), entry.path
        assert entry.size > 0, entry.path
        for download in entry.downloads:
            assert urlsplit(download.url).scheme == "https", (entry.path, download.url)
            assert urlsplit(download.url).netloc, (entry.path, download.url)
    assert len({f.path for f in files}) == len(files)


def test_registry_lists_a_download_for_every_file_with_a_public_copy():
    with_download = {f.path for dataset in RAW_DATASETS.values() for f in dataset.files if f.downloads}
    without = {f.path for dataset in RAW_DATASETS.values() for f in dataset.files} - with_download
    # kernbench's own splits and the JSON-lines conversion of the hotel sample exist only in the mirror.
    assert without == {
        "reviews/womens-clothing-ecommerce-reviews/split_suggested.tsv",
        "reviews/tripadvisor-wang2011-sample5000/reviews.jsonl",
        "reviews/tripadvisor-wang2011-sample5000/split_suggested.tsv",
    }
    assert all("META-SHARE" in RAW_DATASETS[name].source for name in ("semeval14_laptop", "semeval14_restaurant"))
    assert all("PROVENANCE.md" in RAW_DATASETS[name].source for name in ("reviews_clothing", "reviews_hotel"))


def test_downloads_are_pinned_to_a_commit_and_name_the_registered_file():
    laptop = RAW_DATASETS["semeval14_laptop"].files[0]
    assert laptop.downloads == (
        Download(
            "https://raw.githubusercontent.com/shenwzh3/RGAT-ABSA/26b9b869e02347c15c4ef96fdf4584034a163c8b/"
            "data/semeval14/Laptop_Train_v2.xml"
        ),
    )
    clothing = RAW_DATASETS["reviews_clothing"].files[0]
    assert clothing.downloads[0].url.endswith(
        "/18e084eca89ca3f0fe66ee29933876c2e8b909af/Womens%20Clothing%20E-Commerce%20Reviews.csv.zip"
    )
    assert clothing.downloads[0].member == "Womens Clothing E-Commerce Reviews.csv"
    sst_train, sst_dev, _ = RAW_DATASETS["sst"].files
    stanford = "https://nlp.stanford.edu/sentiment/trainDevTestTrees_PTB.zip"
    assert sst_train.downloads == (Download(stanford, "trees/train.txt"),)
    assert [d.member for d in sst_dev.downloads] == [None, "trees/dev.txt"]
    for entry in RAW_DATASETS["reuters"].files:
        name = entry.path.split("/")[-1]
        github, uci = entry.downloads
        assert github.url.endswith(f"/b6c2ca3d46a2540843400890792e5165448b4516/reuters21578/{name}")
        assert github.member is None and uci.member == name


def test_next_download_is_tried_when_one_has_the_wrong_checksum(mirror, tmp_path):
    from kernbench.data.fetch import fetch_file

    good = mirror / "sst" / "dev.txt"
    wrong = tmp_path / "wrong.txt"
    wrong.write_bytes(good.read_bytes().replace(b"(", b"[", 1))
    entry = RAW_DATASETS["sst"].files[1]
    entry = RawFile(entry.path, entry.size, entry.sha256, (Download(wrong.as_uri()), Download(good.as_uri())))
    target = fetch_file(entry, mirror=tmp_path / "empty", dest_dir=tmp_path / "raw", source="test")
    assert target.read_bytes() == good.read_bytes()


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
    entry = RAW_DATASETS["semeval14_laptop"].files[0]
    truncated = tmp_path / "Laptop_Train_v2.xml"
    truncated.write_bytes((mirror / entry.path).read_bytes()[:1000])
    with pytest.raises(DataError, match="truncated"):
        verify(truncated, entry, origin="test")


def test_missing_mirror_without_network_names_the_file_and_the_source(tmp_path):
    dest = tmp_path / "raw"
    with pytest.raises(FetchError) as info:
        fetch_dataset(raw_dataset("semeval14_laptop"), mirror=tmp_path / "empty", dest_dir=dest, timeout=5)
    assert "semeval14/Laptop_Train_v2.xml" in str(info.value)
    assert "META-SHARE" in str(info.value)
    assert not [p for p in dest.rglob("*") if p.is_file()]


def test_download_attempt_fails_cleanly_when_offline(tmp_path):
    # No network here: the download is tried, fails, and the error says which file and URL.
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

    system_tmp = tmp_path / "system-tmp"
    system_tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(system_tmp))
    not_a_zip = tmp_path / "trees.zip"
    not_a_zip.write_bytes(b"this is not a zip archive")
    entry = RawFile("sst/train.txt", 10, "0" * 64, (Download(not_a_zip.as_uri(), "trees/train.txt"),))
    dest = tmp_path / "raw"
    with pytest.raises(FetchError, match="trees.zip"):
        fetch_file(entry, mirror=tmp_path / "empty", dest_dir=dest, source="test", retries=0)
    assert list(system_tmp.iterdir()) == []
    assert [p for p in dest.rglob("*") if p.is_file()] == []
    # A dataset's shared download directory keeps no failed archive for the next file to open.
    shared = dest / ".sst.downloads"
    with pytest.raises(FetchError, match="trees.zip"):
        fetch_file(entry, mirror=tmp_path / "empty", dest_dir=dest, source="test", retries=0, cache=shared)
    assert [p for p in dest.rglob("*") if p.is_file()] == []
