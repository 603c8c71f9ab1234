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
