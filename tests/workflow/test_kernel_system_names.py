"""The workflow refuses, at start-up, a config list that names a kernel system its registry does not allow there."""

from __future__ import annotations

import sys

import pytest

from tests.conftest import REPO_ROOT, SNAKEMAKE, run_snakemake


@pytest.mark.parametrize(
    ("override", "named"),
    [
        ("anygram={agk_systems: [AGKsm, AGKsmm]}",
         "config: anygram.agk_systems names 'AGKsmm', not one of the kernel systems it may name "
         "(AGKsm, AGKwest, AGKwess)"),
        ("anygram={ngtk_systems: [AGKsm]}", "config: anygram.ngtk_systems names 'AGKsm'"),
        ("anygram={sensitivity: {lam_systems: [AGKwest]}}",
         "config: anygram.sensitivity.lam_systems names 'AGKwest', not one of the kernel systems it may name "
         "(AGKsm, AGKwess)"),
    ],
)
def test_workflow_start_up_names_the_list_and_the_system(tmp_path, override, named):
    command = [*SNAKEMAKE, "--cores", "1", "--dry-run",
               "--config", f"results_dir={tmp_path / 'r'}", override]  # fmt: skip
    result = run_snakemake(command, cwd=REPO_ROOT)
    message = result.stdout + result.stderr
    assert result.returncode != 0
    assert named in message, message[-3000:]
    assert "Traceback" not in message, message[-3000:]
