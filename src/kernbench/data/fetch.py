"""Fetch raw files: from the local mirror first, else from their public downloads; sha256 either way.

A catalog dataset's file (``RawFile.local``) is copied from where the config says it is, and from nowhere else.
"""

from __future__ import annotations

import glob
import logging
import shutil
import tarfile
import tempfile
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

from kernbench.data.registry import RawDataset, RawFile
from kernbench.errors import DataError, FetchError
from kernbench.fileio import atomic_path, sha256_of

log = logging.getLogger(__name__)


def verify(path: Path, expected: RawFile, *, origin: str) -> None:
    """Check that ``path`` has the registered size and sha256.

    Parameters
    ----------
    path : pathlib.Path
        File to check.
    expected : RawFile
        Registry entry it must match.
    origin : str
        Where the file came from, for the error message.

    Raises
    ------
    DataError
        Naming the file, its origin and the mismatch.
    """
    size = path.stat().st_size
    if expected.size and size != expected.size:
        raise DataError(
            f"{expected.path} (from {origin}): size {size} bytes, expected {expected.size}; "
            "the file is truncated or not the registered version"
        )
    digest = sha256_of(path)
    if digest != expected.sha256:
        raise DataError(
            f"{expected.path} (from {origin}): sha256 {digest}, expected {expected.sha256}; "
            "the file is corrupt or not the registered version"
        )


def _extract_member(archive: Path, member: str, target: Path) -> None:
    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as zf, zf.open(member) as src, open(target, "wb") as dst:
            shutil.copyfileobj(src, dst)
        return
    with tarfile.open(archive) as tf:
        src = tf.extractfile(member)
        if src is None:
            raise DataError(f"{archive}: {member} is not a regular file in the archive")
        with src, open(target, "wb") as dst:
            shutil.copyfileobj(src, dst)


def _download(url: str, target: Path, *, timeout: float) -> None:
    with urllib.request.urlopen(url, timeout=timeout) as response, open(target, "wb") as dst:
        shutil.copyfileobj(response, dst)


def copy_local(entry: RawFile, *, dest_dir: Path, source: str) -> Path:
    """Place a verified copy of a file outside the mirror (``entry.local``) at ``dest_dir / entry.path``.

    Parameters
    ----------
    entry : RawFile
        A catalog dataset's file: ``local`` set, ``sha256`` the digest the config gives.
    dest_dir : pathlib.Path
        Root of the fetched raw files.
    source : str
        Which config keys name the file and its digest, for the errors.

    Returns
    -------
    pathlib.Path
        The verified copy.

    Raises
    ------
    FetchError
        If the file does not exist.
    DataError
        If its sha256 is not the configured one.
    """
    origin = Path(entry.local)
    if not origin.is_file():
        raise FetchError(f"{origin}: no such file. {source}")
    digest = sha256_of(origin)
    if digest != entry.sha256:
        raise DataError(
            f"{origin}: sha256 {digest}, expected {entry.sha256}. {source} If you changed the file on purpose, "
            "give its new digest; the datasets prepared from it are then prepared again."
        )
    target = Path(dest_dir) / entry.path
    with atomic_path(target) as tmp:
        shutil.copyfile(origin, tmp)
        verify(tmp, entry, origin=f"copy of {origin}")
    return target


def fetch_file(
    entry: RawFile,
    *,
    mirror: Path,
    dest_dir: Path,
    source: str,
    allow_download: bool = True,
    timeout: float = 30.0,
    archives: dict[str, Path] | None = None,
) -> Path:
    """Place one verified raw file at ``dest_dir / entry.path``.

    The mirror copy is used when present; otherwise each URL is tried in turn.
    A catalog dataset's file (``entry.local``) is copied by :func:`copy_local` instead.
    The destination appears only once the file is complete and verified.

    Parameters
    ----------
    entry : RawFile
        What to fetch.
    mirror : pathlib.Path
        Local mirror directory holding files at their registry paths.
    dest_dir : pathlib.Path
        Root of the fetched raw files.
    source : str
        Where the data comes from, for the error when it cannot be had.
    allow_download : bool, optional
        Whether to try the registered downloads when the mirror lacks the file.
    timeout : float, optional
        Network timeout in seconds per URL.
    archives : dict, optional
        Cache of downloaded archives by URL, shared across the files of one dataset.

    Returns
    -------
    pathlib.Path
        The verified destination file.

    Raises
    ------
    FetchError
        If the file is in neither the mirror nor reachable at any URL.
    DataError
        If the file found has the wrong size or checksum.
    """
    if entry.local:
        return copy_local(entry, dest_dir=dest_dir, source=source)
    target = Path(dest_dir) / entry.path
    mirrored = Path(mirror) / entry.path
    if mirrored.is_file():
        verify(mirrored, entry, origin=f"mirror {mirror}")
        with atomic_path(target) as tmp:
            shutil.copyfile(mirrored, tmp)
            verify(tmp, entry, origin=f"copy of mirror {mirror}")
        return target

    failures = []
    if allow_download and entry.downloads:
        archives = {} if archives is None else archives
        for download in entry.downloads:
            url = download.url
            try:
                with atomic_path(target) as tmp:
                    if download.member is None:
                        _download(url, tmp, timeout=timeout)
                    else:
                        if url not in archives:
                            # Beside the raw files, hidden like every partial output, not in the system's /tmp;
                            # one left by a killed fetch of this dataset goes first.
                            for stale in target.parent.glob(f".{glob.escape(Path(url).name)}.*.tmp"):
                                stale.unlink(missing_ok=True)
                            fd = tempfile.NamedTemporaryFile(
                                delete=False, dir=target.parent, prefix=f".{Path(url).name}.", suffix=".tmp"
                            )
                            fd.close()
                            archives[url] = Path(fd.name)
                            _download(url, archives[url], timeout=timeout)
                        _extract_member(archives[url], download.member, tmp)
                    verify(tmp, entry, origin=url)
                log.info("downloaded %s from %s", entry.path, url)
                return target
            except (urllib.error.URLError, OSError, KeyError, tarfile.TarError, zipfile.BadZipFile, DataError) as exc:
                # A wrong checksum at one location is no reason not to try the next.
                failed = archives.pop(url, None)
                if failed is not None:
                    failed.unlink(missing_ok=True)
                failures.append(f"{url}: {exc}")
    where = "; ".join(failures) if failures else (
        "downloads disabled (data.download: false)" if entry.downloads else "it has no public download URL"
    )
    raise FetchError(
        f"{entry.path}: not in the mirror ({mirrored} does not exist) and could not be downloaded "
        f"({where}). {source}"
    )


def fetch_dataset(
    dataset: RawDataset,
    *,
    mirror: Path,
    dest_dir: Path,
    allow_download: bool = True,
    timeout: float = 30.0,
) -> list[Path]:
    """Fetch and verify every file of a raw dataset; all or nothing.

    Parameters
    ----------
    dataset : RawDataset
        Registry entry.
    mirror, dest_dir : pathlib.Path
        Mirror directory and destination root.
    allow_download : bool, optional
        Whether the registered downloads may be used when the mirror lacks a file.
    timeout : float, optional
        Network timeout per URL in seconds.

    Returns
    -------
    list of pathlib.Path
        The fetched files, in registry order.

    Raises
    ------
    DataError
        If any file fails; files fetched by this call are removed again.
    """
    done: list[Path] = []
    archives: dict[str, Path] = {}
    try:
        for entry in dataset.files:
            done.append(
                fetch_file(
                    entry,
                    mirror=mirror,
                    dest_dir=dest_dir,
                    source=dataset.source,
                    allow_download=allow_download,
                    timeout=timeout,
                    archives=archives,
                )
            )
    except BaseException:
        for path in done:
            path.unlink(missing_ok=True)
        raise
    finally:
        for archive in archives.values():
            archive.unlink(missing_ok=True)
    return done
