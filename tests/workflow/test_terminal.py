"""The terminal of a run: one line per finished job by default, Snakemake's whole output with -p."""

from __future__ import annotations

import re
import sys
import textwrap

import yaml

from tests.conftest import REPO_ROOT, SNAKEMAKE, run_snakemake

# Three jobs and the target (a a checkpoint); c fails once b exists, so that a and b finish first.
TOY = textwrap.dedent(
    """
    rule all:
        input: "b/x.txt", "c.txt"
    checkpoint a:
        output: "a.txt"
        shell: "echo a > {output}"
    rule b:
        input: "a.txt"
        output: "b/{name}.txt"
        shell: "sleep 1; cat {input} > {output}"
    rule c:
        input: "b/x.txt"
        output: "c.txt"
        log: "logs/c.log"
        shell: "echo the reason it failed > {log}; exit 3"
    """
)
FINISHED = re.compile(r"^\[\d\d:\d\d:\d\d\] (\d+) of (\d+) steps \(\d+%\) done: (.+) \((\d+)s\)$")


def _toy(tmp_path, *args):
    (tmp_path / "Snakefile").write_text(TOY)
    run = run_snakemake(
        [*SNAKEMAKE, "--cores", "1", "--logger", "kernbench", "--show-failed-logs", *args],
        cwd=tmp_path,
    )
    return run, run.stdout + run.stderr


def test_the_default_profile_selects_the_one_line_logger_and_shows_failed_logs():
    profile = yaml.safe_load((REPO_ROOT / "profiles/default/config.yaml").read_text())
    assert profile["logger"] == ["kernbench"] and profile["show-failed-logs"] is True


def test_each_finished_job_is_one_line_and_a_failure_shows_its_error_and_log(tmp_path):
    run, output = _toy(tmp_path)
    assert run.returncode == 1
    finished = [FINISHED.match(line) for line in output.splitlines() if " steps (" in line]
    assert [(m.group(1), m.group(2), m.group(3)) for m in finished] == [("1", "4", "a"), ("2", "4", "b name=x")]
    assert int(finished[1].group(4)) >= 1  # b sleeps a second
    hidden = ("checkpoint a:", "rule b:", "Finished jobid", "Select jobs to execute", "Execute 1 jobs", "cat a.txt",
              "DAG of jobs will be updated", "Updating checkpoint dependencies")  # fmt: skip
    assert [part for part in hidden if part in output] == []
    # The failed job: Snakemake's error block, its log named and shown.
    assert "Error in rule c:" in output and "logs/c.log (check log file(s) for error details)" in output
    assert "the reason it failed" in output
    # The run's log file keeps the rule blocks.
    [log] = (tmp_path / ".snakemake/log").glob("*.snakemake.log")
    assert "checkpoint a:" in log.read_text() and "rule b:" in log.read_text()


def test_printshellcmds_shows_snakemakes_whole_output(tmp_path):
    run, output = _toy(tmp_path, "-p")
    assert run.returncode == 1
    full = ("checkpoint a:", "rule b:", "wildcards: name=x", "Finished jobid: ", "1 of 4 steps (25%) done", "cat a.txt",
            "DAG of jobs will be updated")  # fmt: skip
    assert [part for part in full if part not in output] == []


def test_quiet_progress_leaves_out_the_job_lines(tmp_path):
    run, output = _toy(tmp_path, "--quiet", "progress")
    assert run.returncode == 1 and " steps (" not in output and "Error in rule c:" in output


def test_a_dry_run_lists_every_job_count_without_the_rule_blocks(tmp_path):
    run = run_snakemake(
        [*SNAKEMAKE, "--dry-run", "--config", "profile=smoke", f"results_dir={tmp_path / 'r'}",
         "anygram={tile_rows: 512}"],
        cwd=REPO_ROOT,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    lines = (run.stdout + run.stderr).splitlines()
    assert not [line for line in lines if re.match(r"^(local)?(rule|checkpoint) \w+:$", line)]
    assert not [line for line in lines if len(line) > 300]
    assert any(re.match(r"^lstm\s+\d+$", line) for line in lines)  # the job statistics
    # The smoke profile's subsample fits one Gram tile of 512 rows per split: the tile jobs count from the start, the step
    # total does not grow when the datasets are prepared.
    assert any(re.match(r"^anygram_gram_tile\s+\d+$", line) for line in lines)
    assert len(lines) < 200
