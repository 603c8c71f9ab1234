"""The Snakemake report of a smoke run, built from a fresh copy of the repository: no warnings, every table inside."""

from __future__ import annotations

import base64
import html
import json
import os
import re
import shutil
import sys
from html.parser import HTMLParser

import pandas as pd
import pytest

from tests.conftest import REPO_ROOT, run_snakemake

TABLES = ["anygram", "fisher", "ordinal", "baselines", "significance", "sensitivity", "ordinal_claims", "costs",
          "costs_chain"]

# Runs Snakemake and prints every record of warning level or above that reaches a handler (after the
# workflow's own logging filters), so that the test sees warnings whatever their wording.
WARNING_PROBE = """
import logging, sys
from snakemake.cli import main

class Probe(logging.Handler):
    def emit(self, record):
        print("WARNING-RECORD:", record.getMessage(), file=sys.stderr)

logging.getLogger().addHandler(Probe(level=logging.WARNING))
main(sys.argv[1:])
"""


def snakemake(*args, cwd=REPO_ROOT):
    return run_snakemake([sys.executable, "-c", WARNING_PROBE, "--nolock", "--cores", "2", *args], cwd=cwd)


@pytest.fixture(scope="module")
def smoke_results(smoke_run):
    """The finished smoke run the end-to-end tests share (conftest.smoke_run)."""
    return smoke_run[0]


class _Rows(HTMLParser):
    """The cell texts of every body row of an HTML table."""

    def __init__(self):
        super().__init__()
        self.rows, self._in_body, self._cell = [], False, None

    def handle_starttag(self, tag, attrs):
        if tag == "tbody":
            self._in_body = True
        elif tag == "tr" and self._in_body:
            self.rows.append([])
        elif tag == "td":
            self._cell = ""

    def handle_endtag(self, tag):
        if tag == "td":
            self.rows[-1].append(self._cell)
            self._cell = None
        elif tag == "tbody":
            self._in_body = False

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data


def _script_value(page: str, name: str):
    match = re.search(rf"var {name} = ([{{\"].*?);\n", page, re.S)  # the JSON one, not a script's own variable
    assert match, f"no {name} in the report"
    return json.loads(match.group(1))


@pytest.mark.slow
def test_report_from_a_fresh_copy_has_every_table_as_html_and_prints_no_warning(smoke_results, tmp_path):
    clone = tmp_path / "clone"
    shutil.copytree(
        REPO_ROOT, clone,
        ignore=shutil.ignore_patterns(".snakemake", ".venv", ".git", "results*", "__pycache__", "*.egg-info"),
    )
    assert not (clone / ".snakemake").exists()  # no job metadata: the results were made by another checkout
    relative = os.path.relpath(smoke_results, clone)
    made = snakemake("--report", "report.html", "--config", "profile=smoke", f"results_dir={relative}", cwd=clone)
    output = made.stdout + made.stderr
    assert made.returncode == 0, output[-3000:]
    assert "WARNING-RECORD" not in output, [line for line in output.splitlines() if "WARNING-RECORD" in line][:5]
    assert "Missing metadata" not in output
    assert output.count("job metadata for") == 1  # the one note that replaces them

    page = (clone / "report.html").read_text(encoding="utf-8")
    results = _script_value(page, "results")
    assert results and not [p for p in results if os.path.isabs(p)]
    assert all(entry["labels"] for entry in results.values())  # the list shows labels, not paths
    by_table = {e["labels"]["table"]: e for e in results.values() if "table" in e["labels"]}
    assert sorted(by_table) == sorted(TABLES)

    for name in TABLES:
        entry = by_table[name]
        assert entry["mime_type"] == "text/html"
        table_html = base64.b64decode(entry["data_uri"].split("base64,", 1)[1]).decode("utf-8")
        parser = _Rows()
        parser.feed(table_html)
        csv = smoke_results / (f"{name}.csv" if name.startswith("costs") else f"tables/{name}.csv")
        assert len(parser.rows) == len(pd.read_csv(csv)), name

    # One concrete row of Table 3: value, interval, paper value and Δ as the CSV holds them.
    anygram = base64.b64decode(by_table["anygram"]["data_uri"].split("base64,", 1)[1]).decode("utf-8")
    parser = _Rows()
    parser.feed(anygram)
    table = pd.read_csv(smoke_results / "tables/anygram.csv")
    row = table[(table["split"] == "test") & (table["metric"] == "accuracy") & table["paper_value"].notna()].iloc[0]
    expected = [f"{row['value']:.2f}", f"[{row['ci_low']:.2f}, {row['ci_high']:.2f}]", f"{row['paper_value']:.2f}",
                f"{row['delta']:.2f}"]
    shown = [r for r in parser.rows if r[:4] == [row["dataset"], row["system"], "test", "accuracy"]]
    assert len(shown) == 1 and shown[0][4:8] == expected

    # The front page is short: the profile and how many cells reproduce; results.md whole is its own page,
    # its first table row there cell by cell.
    front = _script_value(page, "workflow_desc")
    assert "Smoke profile: not a reproduction." in front and "test cells with a paper value" in front
    assert "<table>" not in front and len(front) < 6000
    pages = [e for e in results.values() if e["labels"].get("page")]
    assert len(pages) == 1
    results_html = base64.b64decode(pages[0]["data_uri"].split("base64,", 1)[1]).decode("utf-8")
    first = next(line for line in (smoke_results / "results.md").read_text().splitlines() if line.startswith("| semeval"))
    for cell in [c.strip() for c in first.strip("|").split("|")]:
        assert f"<td>{html.escape(cell, quote=False)}</td>" in results_html, cell

    figures = sorted(e["labels"]["figure"] for e in results.values() if "figure" in e["labels"])
    assert len(figures) == 5 and "kernel throughput" in figures
