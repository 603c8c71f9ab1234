"""The ``kernbench`` command as a user meets it: version, help, the closing message of a run."""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from kernbench.cli import build_parser
from kernbench.closing_message import closing_message
from tests.conftest import REPO_ROOT

USER_COMMANDS = {"compare", "reference", "costs", "readme-results"}


def kernbench(*args):
    return subprocess.run([sys.executable, "-m", "kernbench.cli", *args], capture_output=True, text=True)


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(action.choices)


def test_version_names_the_package_version_and_the_checkouts_commit():
    result = kernbench("--version")
    assert result.returncode == 0
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=REPO_ROOT).stdout.strip()
    match = re.fullmatch(rf"kernbench {re.escape(version('kernbench'))} \(commit ([0-9a-f]{{12}})(-dirty)?\)",
                         result.stdout.strip())
    assert match and commit.startswith(match.group(1)), result.stdout


def test_version_outside_a_checkout_is_the_package_version(tmp_path):
    from kernbench import cli

    copy = tmp_path / "site-packages" / "kernbench"
    shutil.copytree(Path(cli.__file__).parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
    code = f"import sys; sys.path.insert(0, {str(copy.parent)!r}); from kernbench.cli import version_text; " \
        "print(version_text())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert out.stdout.strip() == f"kernbench {version('kernbench')}", out.stderr


def test_every_option_of_every_subcommand_has_help():
    parser = build_parser()
    missing = [
        f"{name} {action.option_strings or action.dest}"
        for name, sub in {"": parser, **_subcommands(parser)}.items()
        for action in sub._actions
        if not isinstance(action, argparse._SubParsersAction)
        and not (action.help and action.help.strip())
    ]
    assert missing == []
    assert len(_subcommands(parser)) > 20


def test_help_lists_the_user_commands_and_names_the_plumbing_once():
    parser = build_parser()
    plumbing = {name for name, sub in _subcommands(parser).items() if sub.get_default("plumbing")}
    assert set(_subcommands(parser)) - plumbing == USER_COMMANDS
    assert {"fetch", "prepare", "tables", "anygram-gram", "ordinal-run", "track"} <= plumbing
    text = kernbench("--help").stdout
    listing = text.split("positional arguments:")[1].split("options:")[0]
    listed = {line.split()[0] for line in listing.splitlines() if line.startswith("    ") and line[4] != " "}
    assert listed == USER_COMMANDS
    assert "{" not in text.splitlines()[0]  # the usage line does not spell out every command
    assert "fetch, figure, fisher-features" in " ".join(text.split())  # the epilog names the rest


@pytest.mark.parametrize("command", ["fetch", "anygram-gram", "compare"])
def test_every_subcommand_keeps_its_own_help(command):
    result = kernbench(command, "--help")
    assert result.returncode == 0
    assert "--" in result.stdout and f"kernbench {command}" in result.stdout


def test_closing_message_names_tables_report_and_dashboard(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = closing_message("/tmp/a b", profile="smoke", tracking_uri="", bin_dir=str(tmp_path / ".venv" / "bin"))
    lines = text.splitlines()
    assert lines[0] == "kernbench: finished (smoke profile)."
    assert lines[1] == "  tables:    /tmp/a b/tables/*.csv and .md; headline numbers in /tmp/a b/results.md"
    assert lines[2] == ("  report:    .venv/bin/snakemake --report '/tmp/a b/report.html' "
                        "--config profile=smoke 'results_dir=/tmp/a b'")
    assert lines[3] == ("  dashboard: .venv/bin/mlflow ui --backend-store-uri 'sqlite:////tmp/a b/mlflow.db', "
                        "then http://127.0.0.1:5000")
    full = closing_message("results", profile="full", tracking_uri="http://host:5000", bin_dir="/opt/env/bin")
    assert "/opt/env/bin/snakemake --report results/report.html --config results_dir=results\n" in full
    assert "dashboard: MLflow server http://host:5000" in full
