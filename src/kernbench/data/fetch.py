"""Fetch raw files: from the local mirror first, else from their public downloads; sha256 either way.

Downloads go through pooch (retries, a progress bar on stderr, the registered sha256 of a file downloaded
as itself, ``Unzip``/``Untar`` for a file inside an archive) into a hidden cache directory beside the raw
files, which is removed once the dataset is fetched or has failed.
A catalog dataset's file (``RawFile.local``) is copied from where the config says it is, and from nowhere else.
"""

from __future__ import annotations

import hashlib
import logging
import shutil
import tarfile
import zipfile
from pathlib import Path
from urllib.parse import unquote, urlsplit
from urllib.request import url2pathname

import pooch
import requests

from kernbench.data.registry import Download, RawDataset, RawFile
from kernbench.errors import DataError, FetchError
from kernbench.fileio import atomic_path, sha256_of

log = logging.getLogger(__name__)

#: Further attempts at one URL after a network error or a checksum mismatch (pooch waits 1 s, then 2 s, ...).
RETRIES = 2


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


def _file_url(url: str, output_file: str, pooch_obj: pooch.Pooch | None) -> None:
    """Pooch downloader for ``file://`` URLs (a local copy named in the config), which pooch does not handle."""
    shutil.copyfile(url2pathname(unquote(urlsplit(url).path)), output_file)


def _downloader(url: str, *, timeout: float):
    scheme = urlsplit(url).scheme
    if scheme in ("http", "https"):
        return pooch.HTTPDownloader(progressbar=True, timeout=timeout)
    if scheme == "file":
        return _file_url
    return pooch.choose_downloader(url, progressbar=True)


def _cache_name(url: str) -> str:
    """Name of a download in the cache: one per URL, ending in the URL's file name."""
    return f"{hashlib.sha256(url.encode()).hexdigest()[:16]}-{unquote(Path(urlsplit(url).path).name)}"


def _download(entry: RawFile, download: Download, *, cache: Path, retries: int, timeout: float) -> Path:
    """Download ``entry`` (or the archive holding it) into ``cache`` with pooch; return the file itself."""
    name = _cache_name(download.url)
    # The registered digest is that of the file, so an archive is downloaded unchecked and its member verified.
    known_hash = f"sha256:{entry.sha256}" if download.member is None else None
    store = pooch.create(
        path=cache, base_url="", registry={name: known_hash}, urls={name: download.url}, retry_if_failed=retries
    )
    downloader = _downloader(download.url, timeout=timeout)
    downloaded = Path(store.fetch(name, downloader=downloader))
    if download.member is None:
        return downloaded
    extract = pooch.Unzip if zipfile.is_zipfile(downloaded) else pooch.Untar
    # Fetched again, the archive is found in the cache and only extracted.
    store.fetch(name, processor=extract(members=[download.member], extract_dir=f"{name}.members"))
    member = cache / f"{name}.members" / download.member
    if not member.is_file():
        raise DataError(f"{download.member} is not a file in the archive")
    return member


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
    retries: int = RETRIES,
    cache: Path | None = None,
) -> Path:
    """Place one verified raw file at ``dest_dir / entry.path``.

    The mirror copy is used when present; otherwise each URL is tried in turn, each up to ``1 + retries``
    times. A catalog dataset's file (``entry.local``) is copied by :func:`copy_local` instead.
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
        Network timeout in seconds per request.
    retries : int, optional
        Further attempts at a URL after a network error or a checksum mismatch.
    cache : pathlib.Path, optional
        Download directory shared by the files of one dataset, so that an archive is downloaded once; the
        caller removes it. Without one, a hidden directory beside the target is used and removed.

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
        own_cache = cache is None
        if own_cache:
            # Only one job writes a given target (Snakemake locks it): a cache found here is a killed fetch's.
            cache = target.parent / f".{target.name}.downloads"
            shutil.rmtree(cache, ignore_errors=True)
        try:
            for download in entry.downloads:
                origin = download.url if download.member is None else f"{download.member} in {download.url}"
                try:
                    found = _download(entry, download, cache=cache, retries=retries, timeout=timeout)
                    with atomic_path(target) as tmp:
                        shutil.copyfile(found, tmp)
                        verify(tmp, entry, origin=origin)
                    log.info("downloaded %s from %s", entry.path, origin)
                    return target
                except (requests.RequestException, ValueError, OSError, tarfile.TarError, zipfile.BadZipFile,
                        DataError) as exc:
                    # A wrong checksum at one location is no reason not to try the next; the failed download
                    # goes, so that a cache shared by the dataset holds only what may be used again.
                    (cache / _cache_name(download.url)).unlink(missing_ok=True)
                    shutil.rmtree(cache / f"{_cache_name(download.url)}.members", ignore_errors=True)
                    failures.append(f"{origin}: {exc}")
        finally:
            if own_cache:
                shutil.rmtree(cache, ignore_errors=True)
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
    retries: int = RETRIES,
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
        Network timeout per request in seconds.
    retries : int, optional
        Further attempts at a URL after a network error or a checksum mismatch.

    Returns
    -------
    list of pathlib.Path
        The fetched files, in registry order.

    Raises
    ------
    DataError
        If any file fails; files fetched by this call are removed again.
    """
    # Hidden beside the raw files, like every partial output; one left by a killed fetch of this dataset goes first.
    cache = Path(dest_dir) / f".{dataset.name}.downloads"
    shutil.rmtree(cache, ignore_errors=True)
    done: list[Path] = []
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
                    retries=retries,
                    cache=cache,
                )
            )
    except BaseException:
        for path in done:
            path.unlink(missing_ok=True)
        raise
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    return done
