"""Downloads over real HTTP from a server on 127.0.0.1: archives extracted, checksums enforced, failures retried."""

from __future__ import annotations

import hashlib
import io
import tarfile
import threading
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from kernbench.data.fetch import fetch_dataset, fetch_file
from kernbench.data.registry import Download, RawDataset, RawFile
from kernbench.errors import FetchError

TRAIN = b"(3 (2 a) (3 good))\n(1 (1 bad) (2 film))\n"
DEV = b"(2 (2 plain) (2 text))\n"


class _Server:
    """Files served at ``/<name>``; ``fail[name]`` requests answered 503 first, ``truncate[name]`` cut short."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.fail: dict[str, int] = {}
        self.truncate: dict[str, int] = {}
        self.requests: dict[str, int] = {}
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (the name http.server calls)
                name = self.path.lstrip("/")
                server.requests[name] = server.requests.get(name, 0) + 1
                if name not in server.files:
                    self.send_error(404)
                    return
                if server.fail.get(name, 0) > 0:
                    server.fail[name] -= 1
                    self.send_error(503, "busy")
                    return
                body = server.files[name]
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if server.truncate.get(name, 0) > 0:
                    # The connection drops half-way through a response that announced the whole length.
                    server.truncate[name] -= 1
                    self.wfile.write(body[: len(body) // 2])
                    self.wfile.flush()
                    self.connection.shutdown(2)
                    return
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/{name}"


@pytest.fixture
def server():
    served = _Server()
    served.thread.start()
    yield served
    served.httpd.shutdown()
    served.httpd.server_close()


def _entry(path: str, data: bytes, *downloads: Download) -> RawFile:
    return RawFile(path, len(data), hashlib.sha256(data).hexdigest(), downloads)


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _tar_gz(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _files(root: Path) -> list[str]:
    """Every file under ``root`` and every hidden directory (a download cache), as paths relative to it."""
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() or p.name.startswith("."))


def test_a_member_of_a_zip_is_downloaded_extracted_and_verified(server, tmp_path, capfd):
    server.files["trees.zip"] = _zip({"trees/train.txt": TRAIN, "trees/dev.txt": DEV})
    entry = _entry("sst/train.txt", TRAIN, Download(server.url("trees.zip"), "trees/train.txt"))
    target = fetch_file(entry, mirror=tmp_path / "empty", dest_dir=tmp_path / "raw", source="test")
    assert target == tmp_path / "raw/sst/train.txt"
    assert target.read_bytes() == TRAIN
    assert _files(tmp_path / "raw") == ["sst/train.txt"]  # archive and its extraction are gone
    assert server.requests == {"trees.zip": 1}
    assert "100%" in capfd.readouterr().err  # pooch's progress bar, on stderr


def test_the_files_of_a_dataset_share_one_download_of_their_tar(server, tmp_path):
    server.files["corpus.tar.gz"] = _tar_gz({"train.txt": TRAIN, "dev.txt": DEV})
    url = server.url("corpus.tar.gz")
    dataset = RawDataset(
        "toy", "test", (_entry("toy/train.txt", TRAIN, Download(url, "train.txt")),
                        _entry("toy/dev.txt", DEV, Download(url, "dev.txt")))
    )
    paths = fetch_dataset(dataset, mirror=tmp_path / "empty", dest_dir=tmp_path / "raw")
    assert [p.read_bytes() for p in paths] == [TRAIN, DEV]
    assert server.requests == {"corpus.tar.gz": 1}
    assert _files(tmp_path / "raw") == ["toy/dev.txt", "toy/train.txt"]


def test_the_mirror_comes_before_the_downloads(server, tmp_path, mirror):
    server.files["dev.txt"] = DEV
    entry = RawFile("sst/dev.txt", 280825, "0e9336aed6e4730e19f58d00a77b3f0297efdb755f7b5e598c98a05e3f97ea40",
                    (Download(server.url("dev.txt")),))
    target = fetch_file(entry, mirror=mirror, dest_dir=tmp_path / "raw", source="test")
    assert target.read_bytes() == (mirror / "sst/dev.txt").read_bytes()
    assert server.requests == {}


def test_a_missing_url_gives_way_to_the_next(server, tmp_path):
    server.files["copy/train.txt"] = TRAIN
    gone, copy = Download(server.url("gone/train.txt")), Download(server.url("copy/train.txt"))
    entry = _entry("sst/train.txt", TRAIN, gone, copy)
    target = fetch_file(entry, mirror=tmp_path / "empty", dest_dir=tmp_path / "raw", source="test", retries=0)
    assert target.read_bytes() == TRAIN
    assert server.requests == {"gone/train.txt": 1, "copy/train.txt": 1}


@pytest.mark.parametrize("member", [None, "trees/train.txt"])
def test_a_wrong_sha256_names_the_file_and_leaves_nothing(server, tmp_path, member):
    altered = TRAIN.replace(b"good", b"fine")
    if member is None:
        server.files["train.txt"] = altered
        download = Download(server.url("train.txt"))
    else:
        server.files["train.txt"] = _zip({member: altered})
        download = Download(server.url("train.txt"), member)
    entry = _entry("sst/train.txt", TRAIN, download)
    with pytest.raises(FetchError) as info:
        fetch_dataset(RawDataset("sst", "Get it from the test.", (entry,)), mirror=tmp_path / "empty",
                      dest_dir=tmp_path / "raw", retries=1)
    message = str(info.value)
    assert message.startswith("sst/train.txt: not in the mirror")
    assert server.url("train.txt") in message and "Get it from the test." in message
    assert hashlib.sha256(altered).hexdigest() in message and entry.sha256 in message
    assert _files(tmp_path / "raw") == []
    # A file downloaded as itself is checked by pooch, which tries again: a mismatch may be a damaged transfer.
    assert server.requests == {"train.txt": 2 if member is None else 1}


def test_a_server_error_is_retried(server, tmp_path):
    server.files["train.txt"] = TRAIN
    server.fail["train.txt"] = 1
    entry = _entry("sst/train.txt", TRAIN, Download(server.url("train.txt")))
    target = fetch_file(entry, mirror=tmp_path / "empty", dest_dir=tmp_path / "raw", source="test", retries=1)
    assert target.read_bytes() == TRAIN
    assert server.requests == {"train.txt": 2}


def test_a_dropped_connection_is_retried_and_leaves_no_partial_file(server, tmp_path):
    server.files["trees.zip"] = _zip({"trees/train.txt": TRAIN * 50})
    server.truncate["trees.zip"] = 1
    entry = _entry("sst/train.txt", TRAIN * 50, Download(server.url("trees.zip"), "trees/train.txt"))
    target = fetch_file(entry, mirror=tmp_path / "empty", dest_dir=tmp_path / "raw", source="test", retries=1)
    assert target.read_bytes() == TRAIN * 50
    assert server.requests == {"trees.zip": 2}
    assert _files(tmp_path / "raw") == ["sst/train.txt"]


def test_without_retries_a_server_error_names_the_file_and_the_status(server, tmp_path):
    server.files["train.txt"] = TRAIN
    server.fail["train.txt"] = 1
    entry = _entry("sst/train.txt", TRAIN, Download(server.url("train.txt")))
    with pytest.raises(FetchError, match=r"^sst/train\.txt: .*503"):
        fetch_file(entry, mirror=tmp_path / "empty", dest_dir=tmp_path / "raw", source="test", retries=0)
    assert server.requests == {"train.txt": 1}
    assert _files(tmp_path / "raw") == []
